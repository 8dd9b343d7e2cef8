/**
 * Set-up of the drill tests: a real local HTTP "collector" (telemetry batches in, a fleet
 * feed out that the test writes drill events into), the fake provider, and an SDK instance
 * with the official `openai` and `@anthropic-ai/sdk` clients on its fetch.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';
import { formatSseEvent, type DrillCommand, type TelemetryBatch } from '@breakerbox/protocol';
import { createBreakerbox, type Breakerbox, type BreakerboxFetchOptions, type BreakerboxOptions, type DrillOutcome } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';

/** A collector that records batches and feed requests and keeps every feed open. */
export interface DrillCollector {
  url: string;
  feeds: URL[];
  batches: TelemetryBatch[];
  /** Writes a drill event to every open feed. */
  send(command: Partial<DrillCommand> & Pick<DrillCommand, 'kinds'>): void;
  /** Writes one raw SSE event to every open feed. */
  sendEvent(event: string, data: unknown): void;
  close(): Promise<void>;
}

export async function drillCollector(): Promise<DrillCollector> {
  const open: ServerResponse[] = [];
  const c: DrillCollector = {
    url: '',
    feeds: [],
    batches: [],
    send(command) {
      const data = JSON.stringify({ id: 'drill-1', service: 'drafts', step_ms: 60_000, issued_at: Date.now(), ...command });
      c.sendEvent('drill', data);
    },
    sendEvent(event, data) {
      for (const res of open) res.write(formatSseEvent({ event, data: typeof data === 'string' ? data : JSON.stringify(data) }));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/v1/fleet')) {
      c.feeds.push(new URL(req.url, c.url));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ready\ndata: {}\n\n');
      open.push(res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      try {
        c.batches.push(JSON.parse(Buffer.concat(chunks).toString()));
      } catch { /* not a batch */ }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"accepted":1,"duplicate":false}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return c;
}

export interface DrillRig {
  collector: DrillCollector;
  fake: FakeProvider;
  bb: Breakerbox;
  openai: OpenAI;
  anthropic: Anthropic;
  outcomes: DrillOutcome[];
  /** Sends a drill and waits until the instance has acted on it. */
  drill(command: Partial<DrillCommand> & Pick<DrillCommand, 'kinds'>): Promise<DrillOutcome>;
  close(): Promise<void>;
}

/** Waits (real time: HTTP is real) until `ok` holds. */
export async function until(ok: () => boolean): Promise<void> {
  await expect.poll(ok, { timeout: 15_000, interval: 10 }).toBe(true);
}

/** A service `drafts` with drills enabled (unless `bbOptions` says otherwise), its feed open. */
export async function drillRig(fetchOptions: BreakerboxFetchOptions = {}, bbOptions: BreakerboxOptions = {}): Promise<DrillRig> {
  const collector = await drillCollector();
  const fake = await startFakeProvider({ tokens: 8 });
  const bb = createBreakerbox({
    drills: { enabled: true },
    ...bbOptions,
    telemetry: { url: collector.url, service: 'drafts', instance: 'pod-1', token: 'tok', gzip: false, intervalMs: 3_600_000, ...bbOptions.telemetry },
    defaults: { retry: { maxAttempts: 1 }, ...bbOptions.defaults },
  });
  bb.onWarning(() => undefined);
  const outcomes: DrillOutcome[] = [];
  bb.onDrill((o) => outcomes.push(o));
  const f = bb.fetch(fetchOptions);
  const rig: DrillRig = {
    collector,
    fake,
    bb,
    openai: new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: f }),
    anthropic: new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: f }),
    outcomes,
    async drill(command) {
      const before = outcomes.length;
      collector.send(command);
      await until(() => outcomes.length > before);
      return outcomes.at(-1)!;
    },
    async close() {
      await bb.close(200);
      await fake.close();
      await collector.close();
    },
  };
  if (bbOptions.drills?.enabled !== false) await until(() => collector.feeds.length > 0);
  return rig;
}
