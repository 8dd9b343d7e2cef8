/**
 * Failure drills end to end (issue 26): a real collector (fastify, SQLite file, real HTTP on
 * port 0), SDK instances built with `createBreakerbox({ telemetry, drills: { enabled: true } })`
 * calling the fake provider through the official `openai` client on `bb.fetch`, at a steady
 * rate. `breakerbox drill run` (the CLI's entry function, real HTTP) starts each run; the
 * instances inject the faults, send their drill telemetry, and the collector judges it.
 *
 * A correctly configured service (fallback declared, `maxRetries: 0`, `validate` set) passes
 * every drill; a misconfigured one (no fallback, no validation) fails the drills its
 * mistakes break, with the figures that say why; and the on-call's
 * webhook, live throughout (alerts evaluated every second), receives nothing for the drill
 * traffic — though it does page for the same failures sent as real traffic afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { BreakerKey, DrillKind } from '@breakerbox/protocol';
import { collector, windows, type TestCollector } from '../verdicts/support.ts';
import { createBreakerbox, type Breakerbox, type BreakerboxFetchOptions } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { receiver, type Receiver } from '../alerts/receiver.ts';
import { drillCommand } from '../../server/drills/drill-cli.ts';
import type { DrillResult, DrillRunView } from '../../server/schemas/drills.ts';

/** Seconds each drill runs: dozens of calls, far below the SDK's 10 s telemetry interval (it cuts drill windows at each drill's end). */
const STEP_S = 3;
/** One call every this many ms per service. */
const CALL_EVERY_MS = 80;

const TOOL = {
  type: 'function' as const,
  function: { name: 'search_docs', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query', 'limit'], additionalProperties: false } },
};
/** Every call asks for a structured answer (a forced tool call), so `field_renamed` has a field to rename. */
const ask = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'Find the refund policy' }], tools: [TOOL], tool_choice: 'required' as const };

let c: TestCollector;
let base: string;
let fake: FakeProvider;
let oncall: Receiver;

/** One service: an SDK instance with drills enabled, the official client on its fetch, and a steady caller. */
interface Service {
  name: string;
  bb: Breakerbox;
  openai: OpenAI;
  outcomes: { ok: number; failed: number };
  start(): void;
  stop(): Promise<void>;
}

function service(name: string, fetchOptions: BreakerboxFetchOptions, maxRetries: number): Service {
  const bb = createBreakerbox({
    telemetry: { url: base, token: c.token, service: name, instance: `${name}-pod-1`, coalesceMs: 50 },
    drills: { enabled: true },
    defaults: {
      // Short cooldowns so a breaker one drill opened lets the next drill's fault through (half-open trials); slow past 500 ms.
      breaker: { minCalls: 5, cooldownMs: 300, maxCooldownMs: 600, cooldownJitter: 0, halfOpenSuccesses: 1, latencyCeilingMs: 500 },
    },
  });
  bb.onWarning(() => undefined);
  const openai = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries, fetch: bb.fetch(fetchOptions) });
  const outcomes = { ok: 0, failed: 0 };
  const inFlight = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | undefined;
  return {
    name, bb, openai, outcomes,
    start() {
      timer = setInterval(() => {
        const p = openai.chat.completions.create(ask).then(() => outcomes.ok++, () => outcomes.failed++);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }, CALL_EVERY_MS);
    },
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

const io = () => {
  const lines: string[] = [];
  return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) } };
};

/** Runs `breakerbox drill run` for `svc` over real HTTP; the exit code, the printed report and the stored run. */
async function drill(svc: Service, drills: string) {
  const out = io();
  const code = await drillCommand(['run', '--url', base, '--service', svc.name, '--drills', drills, '--step-s', String(STEP_S), '--poll-ms', '200'], { BREAKERBOX_TOKEN: c.token }, out.io);
  const text = out.lines.join('\n');
  const id = /^drill (\S+) on /m.exec(text)?.[1];
  expect(id, text).toBeDefined();
  const run = (await c.get<{ run: DrillRunView }>(`/api/drills/${id}`)).run;
  return { code, text, run };
}

const result = (run: DrillRunView, kind: DrillKind): DrillResult => {
  const r = run.report!.drills.find((d) => d.kind === kind);
  expect(r, `${kind} in the report`).toBeDefined();
  return r!;
};
const check = (r: DrillResult, name: string) => r.checks.find((x) => x.name === name);

beforeAll(async () => {
  oncall = await receiver();
  fake = await startFakeProvider({ tokens: 8 });
  c = await collector({
    config: {
      // A few seconds' grace: an instance sends a drill's last counters when it ends, on a loaded machine maybe late.
      drills: { grace_s: 3, check_interval_ms: 100 },
      fleet: { poll_interval_ms: 100 },
      // The page the auth drill expects must be tellable in a 3 s drill.
      alerts: { rules: { clients_degraded: { for_s: 1, min_calls: 3 } } },
      notifiers: [{ name: 'oncall', type: 'webhook', url: `${oncall.url}/hook`, min_severity: 'info', retries: 0 }],
    },
    // Alerts evaluated every second, as in production: a drill that leaked into real verdicts would page.
    env: { BREAKERBOX_ALERT_INTERVAL_S: '1' },
  });
  await c.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(c.app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await c?.close();
  await fake?.close();
  await oncall?.close();
});

describe('failure drills: SDK, official openai client, real collector', () => {
  it('passes a correctly configured service, fails a misconfigured one with its figures, and pages nobody', async () => {
    const good = service('drafts', { fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] }, validate: 'request' }, 0);
    // No fallback declared, no validation.
    const bad = service('drafts-misconfigured', {}, 0);
    const all = [good, bad];
    try {
      for (const s of all) await expect.poll(() => s.bb.fleetStats()?.state, { timeout: 15_000 }).toBe('open');
      for (const s of all) s.start();
      const [g, b] = await Promise.all([drill(good, '429,ttft,down,length,rename,auth'), drill(bad, '429,down,rename')]);
      for (const s of all) await s.stop();
      console.log(`\n${g.text}\n\n${b.text}\n`);

      // 1. The correctly configured service passes every drill, and the CLI exits 0.
      expect(g.run.report!.outcome, g.text).toBe('pass');
      expect(g.code, g.text).toBe(0);
      expect(g.run.report!.instances).toEqual(['drafts-pod-1']);
      for (const kind of ['rate_limit', 'slow_first_byte', 'primary_down', 'truncated', 'field_renamed', 'auth_revoked'] as const) expect(result(g.run, kind).outcome, `${kind}\n${g.text}`).toBe('pass');
      expect(check(result(g.run, 'primary_down'), 'fallback_answered')!.value).toBeGreaterThan(0);
      expect(check(result(g.run, 'field_renamed'), 'invalid_output')!.value).toBeGreaterThan(0);
      expect(result(g.run, 'auth_revoked').alert).toMatchObject({ would_fire: true });

      // 2. The misconfigured one fails, and the CLI exits 1; each drill names the figure its mistake broke.
      expect(b.run.report!.outcome, b.text).toBe('fail');
      expect(b.code, b.text).toBe(1);
      const down = result(b.run, 'primary_down');
      expect(down.outcome, b.text).toBe('fail');
      expect(check(down, 'fallback_answered')).toMatchObject({ value: 0, passed: false });
      expect(check(down, 'user_visible_failures')!.value).toBeGreaterThan(0);
      const rename = result(b.run, 'field_renamed');
      expect(rename.outcome, b.text).toBe('fail');
      expect(check(rename, 'invalid_output')).toMatchObject({ value: 0, passed: false });
      const limited = result(b.run, 'rate_limit');
      expect(limited.outcome, b.text).toBe('fail');
      expect(check(limited, 'fallback_answered')).toMatchObject({ value: 0, passed: false });
      expect(check(limited, 'user_visible_failures')!.value).toBeGreaterThan(0);
    } finally {
      for (const s of all) await s.stop();
      for (const s of all) await s.bb.close(1_000);
    }

    // 3. No page reached the on-call for the drill traffic: the drills' keys were never in real verdicts.
    expect(oncall.received).toEqual([]);
    const incidents = await c.get<{ incidents: unknown[] }>('/api/incidents');
    expect(incidents.incidents).toEqual([]);

    // The receiver was live all along: the same 401s sent as real traffic page it.
    const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
    const now = Date.now();
    await c.send({ service: 'drafts', instance: 'drafts-pod-1' }, windows(KEY, now - 40_000, now, { calls: 10, errors: { auth: 10 } }));
    await expect.poll(() => oncall.received.length, { timeout: 30_000, interval: 200 }).toBeGreaterThan(0);
  }, 110_000);
});
