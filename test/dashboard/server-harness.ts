import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../server/config/load.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import type { TelemetryEvent } from '@breakerbox/protocol';

/** A real collector on port 0 with a temp database and one token per right. */
export interface TestCollector {
  server: RunningServer;
  url: string;
  tokens: { ingest: string; read: string; admin: string };
  /** Sends events through the real ingest endpoint (800 a batch, under the 1 MiB body limit); throws on anything but 200. */
  ingest(events: TelemetryEvent[], source?: { service: string; instance: string }): Promise<void>;
  /** GET with the read token, parsed. */
  get<T>(path: string): Promise<T>;
  /** Stops the server (idempotent) and removes its files. */
  close(): Promise<void>;
}

let batchSeq = 0;

/** Starts a collector; `env` adds settings as the CLI would read them (e.g. alert interval). */
export async function startCollector(env: Record<string, string> = {}): Promise<TestCollector> {
  const dir = mkdtempSync(join(tmpdir(), 'bbx-dash-'));
  const config = loadConfig({
    env: { BREAKERBOX_DB: join(dir, 'bbx.db'), BREAKERBOX_PORT: '0', BREAKERBOX_HOST: '127.0.0.1', BREAKERBOX_LOG_LEVEL: 'silent', BREAKERBOX_SUSPICION_INTERVAL_S: '0', ...env },
  });
  const server = await startServer(config, { handleSignals: false, print: () => {} });
  const tokens = {
    ingest: (await server.app.storage.tokens.create('test-ingest', ['ingest'])).secret,
    read: (await server.app.storage.tokens.create('test-read', ['read'])).secret,
    admin: (await server.app.storage.tokens.create('test-admin', ['admin'])).secret,
  };
  const url = server.url.replace('localhost', '127.0.0.1');
  let closed = false;
  return {
    server,
    url,
    tokens,
    async ingest(events, source = { service: 'ticket-drafts', instance: 'pod-1' }) {
      for (let i = 0; i < events.length; i += 800) {
        const res = await fetch(`${url}/v1/telemetry`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.ingest}` },
          body: JSON.stringify({ batch_id: `dash-${process.pid}-${batchSeq++}`, source: { ...source, sdk: 'test/0' }, events: events.slice(i, i + 800) }),
        });
        if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
      }
    },
    async get<T>(path: string) {
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${tokens.read}` } });
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as T;
    },
    async close() {
      if (!closed) {
        closed = true;
        await server.close();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
