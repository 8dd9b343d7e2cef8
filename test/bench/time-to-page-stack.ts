/**
 * One live stack of the time-to-page benchmark, the scenario of issue 17: the fake
 * OpenAI-compatible provider (`test/support/`) behind an account gate, the real collector
 * with a webhook notifier to a local receiver, two probers (`eu-west`, `us-east`, the
 * prober's own CLI in-process) at the default 1-minute schedule, and three instances calling
 * through the official `openai` client: with the breakerbox SDK and one fallback (`fleet: 'sdk'`),
 * or instrumented only, exporting OpenTelemetry spans from processes of their own
 * (`fleet: 'spans'`, `time-to-page-span-app.ts`). Every collector, SDK and prober setting is its
 * default except `suspicion.enabled` (the BEFORE run turns it off).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { createBreakerbox, type Breakerbox } from '@breakerbox/sdk';
import { startAccountGate } from '../../demo/account-gate.ts';
import { main as proberMain } from '../../probe/cli.ts';
import { loadConfig } from '../../server/config/load.ts';
import { startServer } from '../../server/main.ts';
import { receiver } from '../alerts/receiver.ts';
import { startFakeProvider } from '../support/fake-provider.ts';
import { sqlOf } from '../support/sql.ts';

export const PRIMARY = 'gpt-4o';
export const FALLBACK = 'gpt-4o-mini';
export const LOCATIONS = ['eu-west', 'us-east'] as const;
const KEYS = { checkout: 'sk-checkout', support: 'sk-support', prober: 'sk-prober' } as const;
/** Three instances: two of `checkout`, one of `support` (whose account runs out in the self-inflicted incident). */
const INSTANCES = [
  { service: 'checkout', instance: 'checkout-1' },
  { service: 'checkout', instance: 'checkout-2' },
  { service: 'support', instance: 'support-1' },
] as const;
/** Calls per second per instance (Poisson arrivals). */
const RATE_PER_S = 2;
const PRICE = { input_per_mtok: 2.5, output_per_mtok: 10 };

/** A page as the webhook receiver got it. */
export interface Page {
  at: number;
  event: string;
  title: string;
  /** The primary key's verdict as the page gives it (the incident's, else the alert's). */
  verdict: string | null;
  hint: string | null;
  summary: string;
}

/** A running stack. */
export interface Stack {
  /** The primary key's verdict over the alerts' verdict window (900 s), now. */
  verdict(): Promise<{ verdict: string; hint: string | null } | null>;
  /** Warm scheduled probes of the primary stored per location. */
  scheduledProbes(): Record<string, { n: number; last: number | null }>;
  pages(): Page[];
  /** Every request for the primary model answers 503, probers included. */
  outage(): void;
  /** The `support` service's account is over its rate-limit quota (429); `checkout` and the probers are served. */
  exhaustSupportQuota(): void;
  /** Probes run on request in [since, until], and their cost; scheduled ones beside them. */
  onDemand(since: number, until?: number): { probes: number; costUsd: number; scheduled: number };
  stop(): Promise<void>;
}

function target(name: string, baseUrl: string) {
  return {
    name,
    key: { provider: 'openai', endpoint: 'chat', model: name },
    kind: 'openai-chat',
    base_url: baseUrl,
    api_key_env: 'BENCH_PROBER_KEY',
    request: { max_tokens: 8 },
    latency_ceiling_ms: 8_000,
    price: PRICE,
  };
}

/** Which fleet calls the provider: SDK instances, or span-only instrumented apps. */
export type Fleet = 'sdk' | 'spans';

/** Starts one span-only instance in its own process; resolves once it runs. */
async function spanApp(env: Record<string, string>): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'run-ts.js'), join(import.meta.dirname, 'time-to-page-span-app.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      if (String(d).includes('READY')) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`span app exited ${code}`)));
  });
  return proc;
}

/** Starts every part of one stack; `suspicion` is the collector's `suspicion.enabled`. */
export async function startStack(o: { suspicion: boolean; fleet?: Fleet }): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'bbx-ttp-'));
  const fake = await startFakeProvider({ apiKeys: Object.values(KEYS), models: [PRIMARY, FALLBACK] });
  // A plausible answer time, so a burst of calls is not answered in the same millisecond.
  fake.script('*', { kind: 'ok', latencyMs: 150, tokens: 8 }, { persistent: true });
  const gate = await startAccountGate(fake.url);
  const hooks = await receiver();

  const file = join(dir, 'collector.json');
  writeFileSync(file, JSON.stringify({ log_level: 'warn', suspicion: { enabled: o.suspicion }, notifiers: [{ name: 'oncall', type: 'webhook', url: hooks.url }] }));
  const config = loadConfig({ env: {}, flags: { config: file, db: join(dir, 'bbx.db'), port: '0', host: '127.0.0.1' } });
  const server = await startServer(config, { handleSignals: false, print: () => undefined });
  const app = server.app;
  const ingest = (await app.storage.tokens.create('bench-ingest', ['ingest'])).secret;

  // The probers: the CLI of `breakerbox probe`, in-process, stopped through its signal hook.
  const probeFile = join(dir, 'probes.json');
  writeFileSync(probeFile, JSON.stringify({ targets: [target(PRIMARY, `${gate.url}/v1`), target(FALLBACK, `${gate.url}/v1`)] }));
  const stopProbers: (() => void)[] = [];
  const probers = LOCATIONS.map((location) =>
    proberMain(['probe', '--config', probeFile, '--location', location, '--log-level', 'error'], {
      env: { BENCH_PROBER_KEY: KEYS.prober, BREAKERBOX_TOKEN: ingest, BREAKERBOX_URL: server.url },
      stdout: () => undefined,
      stderr: (line) => process.stderr.write(`[${location}] ${line}\n`),
      onSignal: (handler) => {
        stopProbers.push(() => handler('SIGTERM'));
        return () => undefined;
      },
    }),
  );

  // The fleet: each instance its own SDK, the official client through `bb.fetch` with one fallback.
  const sdks: Breakerbox[] = [];
  const apps: ChildProcess[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  if (o.fleet === 'spans') {
    for (const { service, instance } of INSTANCES) {
      apps.push(await spanApp({
        TTP_COLLECTOR: server.url, TTP_TOKEN: ingest, TTP_SERVICE: service, TTP_INSTANCE: instance,
        TTP_BASE_URL: `${gate.url}/v1`, TTP_API_KEY: KEYS[service], TTP_MODEL: PRIMARY, TTP_RATE: String(RATE_PER_S),
      }));
    }
  }
  for (const { service, instance } of o.fleet === 'spans' ? [] : INSTANCES) {
    const bb = createBreakerbox({ telemetry: { url: server.url, token: ingest, service, instance } });
    // The fallback shares the provider (the setup, the README's example): known, not news here.
    bb.onWarning(() => undefined);
    sdks.push(bb);
    const client = new OpenAI({
      apiKey: KEYS[service],
      baseURL: `${gate.url}/v1`,
      maxRetries: 0,
      fetch: bb.fetch({ provider: 'openai', fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } }),
    });
    const next = () => {
      if (stopped) return;
      const t = setTimeout(() => {
        timers.delete(t);
        next();
        client.chat.completions.create({ model: PRIMARY, max_tokens: 16, messages: [{ role: 'user', content: 'Draft a reply to ticket 4711.' }] }).catch(() => undefined);
      }, (-Math.log(1 - Math.random()) / RATE_PER_S) * 1000);
      timers.add(t);
    };
    next();
  }

  const primaryId = () => sqlOf(app).prepare("SELECT id FROM keys WHERE provider = 'openai' AND endpoint = 'chat' AND model = ?").pluck().get(PRIMARY) as number | undefined;

  return {
    async verdict() {
      const id = primaryId();
      if (id === undefined) return null;
      const now = app.clock.now();
      const a = (await app.verdicts.analyse({ from: now - config.alerts.verdict_window_s * 1000, to: now }, { keyId: id })).find((x) => x.info.id === id);
      return a ? { verdict: a.decision.verdict, hint: a.decision.hint ?? null } : null;
    },
    scheduledProbes() {
      const rows = sqlOf(app)
        .prepare("SELECT location, count(*) AS n, max(ts) AS last FROM probe_events WHERE key_id = ? AND cold = 0 AND trigger IS NOT 'suspicion' GROUP BY location")
        .all(primaryId() ?? -1) as { location: string; n: number; last: number }[];
      return Object.fromEntries(LOCATIONS.map((l) => {
        const r = rows.find((x) => x.location === l);
        return [l, { n: r?.n ?? 0, last: r?.last ?? null }];
      }));
    },
    pages() {
      return hooks.received.map((r) => {
        const b = r.body as { event: string; sent_at?: number; group: { title: string; incident: { verdict: string; hint: string | null } | null; alerts: { key?: { model: string }; verdict: string | null; hint: string | null; summary: string }[] }; alert: { summary: string } };
        const own = b.group.alerts.find((a) => a.key?.model === PRIMARY) ?? b.group.alerts[0];
        const verdict = b.group.incident?.verdict ?? own?.verdict ?? null;
        const hint = b.group.incident ? b.group.incident.hint : (own?.hint ?? null);
        return { at: b.sent_at ?? 0, event: b.event, title: b.group.title, verdict, hint, summary: own?.summary ?? b.alert.summary };
      });
    },
    outage: () => fake.script(PRIMARY, { kind: 'status', status: 503, latencyMs: 60 }, { persistent: true }),
    exhaustSupportQuota: () => gate.exhaust(KEYS.support, 'rate_limit'),
    onDemand(since, until = Number.MAX_SAFE_INTEGER) {
      const r = sqlOf(app)
        .prepare("SELECT sum(CASE WHEN trigger = 'suspicion' THEN 1 ELSE 0 END) AS n, sum(CASE WHEN trigger = 'suspicion' THEN coalesce(cost_usd, 0) ELSE 0 END) AS cost, sum(CASE WHEN trigger IS NOT 'suspicion' THEN 1 ELSE 0 END) AS scheduled FROM probe_events WHERE ts >= ? AND ts <= ? AND cold = 0")
        .get(since, until) as { n: number | null; cost: number | null; scheduled: number | null };
      return { probes: r.n ?? 0, costUsd: r.cost ?? 0, scheduled: r.scheduled ?? 0 };
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      for (const s of stopProbers) s();
      await Promise.allSettled(probers);
      await Promise.all(sdks.map((bb) => bb.close(2_000)));
      await Promise.all(apps.map(async (p) => {
        if (p.exitCode !== null) return;
        p.kill('SIGTERM');
        await once(p, 'exit');
      }));
      await server.close();
      await hooks.close();
      await gate.close();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
