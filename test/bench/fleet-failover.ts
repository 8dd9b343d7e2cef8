/**
 * The fleet feed's failover run (issue 25, "Benchmark"): the fake OpenAI-compatible provider,
 * the real collector (every setting default), two probers (`eu-west`, `us-east`, the
 * prober's own CLI in-process) at the default schedule with probe on suspicion, and 20 SDK
 * instances (isolated SDK instances in this process) calling through the official `openai`
 * client with one fallback at 1 call/s each. The primary answers 503 for 90 s (or
 * `outageMs`), then recovers. `feed` turns the SDK's fleet subscription on or off; everything
 * else is the same. The raw series (`series`) feed the long outage's per-minute figures
 * (test/bench/fleet-long-outage.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import OpenAI from 'openai';
import { createBreakerbox, type Breakerbox } from '@breakerbox/sdk';
import { main as proberMain } from '../../probe/cli.ts';
import { loadConfig } from '../../server/config/load.ts';
import { startServer } from '../../server/main.ts';
import { startFakeProvider } from '../support/fake-provider.ts';
import { sqlOf } from '../support/sql.ts';

const PRIMARY = 'gpt-4o';
const FALLBACK = 'gpt-4o-mini';
const INSTANCES = 20;
const RATE_PER_S = 1;
const OUTAGE_MS = 90_000;
const AFTER_MS = 90_000;
/** The probers' locations; both decide an outage they both see. */
export const LOCATIONS = ['eu-west', 'us-east'] as const;
const APP_KEY = 'sk-app';
const PROBER_KEY = 'sk-prober';

/** What one run measured. */
export interface FailoverFigures {
  feed: boolean;
  calls: number;
  failedCalls: number;
  primaryAttemptsInOutage: number;
  timeoutWaits: number;
  /** From the probes confirming recovery (every location ok) to the first 5 s in which most calls were served by the primary, s (null: never). */
  backAfterProbesS: number | null;
  probesOkAfterRecoveryS: number | null;
  decisionsSent: number;
  fleetApplied: number;
  /** Where the time goes, s from the outage start (t0) or the provider's return (t1). */
  timeline: string[];
  /** The raw series, epoch ms. */
  series: FailoverSeries;
}

/** What happened when, for figures computed after the run. */
export interface FailoverSeries {
  t0: number;
  t1: number;
  instances: number;
  /** Every breaker transition of the primary's key. */
  transitions: { at: number; pod: number; from: string | null; to: string; reason: string }[];
  /** The application's attempts on the primary. */
  primaryAttempts: number[];
  /** Probes of the primary from t0 - 2 min on, every location (scheduled, on suspicion and recovery). */
  probes: { ts: number; location: string; outcome: string }[];
  /** First `recovered` decision applied by an instance (null: none). */
  recoveredAppliedAt: number | null;
}

/** Run settings: the outage's length and how long the run goes on after it, ms. */
export interface FailoverOptions {
  outageMs?: number;
  afterMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the scenario once. */
export async function failoverRun(feed: boolean, log: (line: string) => void, opts: FailoverOptions = {}): Promise<FailoverFigures> {
  const outageMs = opts.outageMs ?? OUTAGE_MS;
  const afterMs = opts.afterMs ?? AFTER_MS;
  const dir = mkdtempSync(join(tmpdir(), 'bbx-fleet-failover-'));
  const fake = await startFakeProvider({ apiKeys: [APP_KEY, PROBER_KEY], models: [PRIMARY, FALLBACK] });
  fake.script('*', { kind: 'ok', latencyMs: 150, tokens: 8 }, { persistent: true });
  const file = join(dir, 'collector.json');
  writeFileSync(file, JSON.stringify({ log_level: 'warn' }));
  const config = loadConfig({ env: {}, flags: { config: file, db: join(dir, 'bbx.db'), port: '0', host: '127.0.0.1' } });
  const server = await startServer(config, { handleSignals: false, print: () => undefined });
  const app = server.app;
  const ingest = (await app.storage.tokens.create('bench-ingest', ['ingest'])).secret;

  const target = (name: string) => ({
    name, key: { provider: 'openai', endpoint: 'chat', model: name }, kind: 'openai-chat', base_url: `${fake.url}/v1`,
    api_key_env: 'BENCH_PROBER_KEY', request: { max_tokens: 8 }, latency_ceiling_ms: 8_000, price: { input_per_mtok: 2.5, output_per_mtok: 10 },
  });
  const probeFile = join(dir, 'probes.json');
  writeFileSync(probeFile, JSON.stringify({ targets: [target(PRIMARY), target(FALLBACK)] }));
  const stopProbers: (() => void)[] = [];
  const probers = LOCATIONS.map((location) =>
    proberMain(['probe', '--config', probeFile, '--location', location, '--log-level', 'error'], {
      env: { BENCH_PROBER_KEY: PROBER_KEY, BREAKERBOX_TOKEN: ingest, BREAKERBOX_URL: server.url },
      stdout: () => undefined,
      stderr: (line) => process.stderr.write(`[${location}] ${line}\n`),
      onSignal: (handler) => {
        stopProbers.push(() => handler('SIGTERM'));
        return () => undefined;
      },
    }),
  );

  const calls: { at: number; level: number; ok: boolean; durationMs: number; timeout: boolean; attempts: number }[] = [];
  // Everything runs in this process: a stalled event loop delays calls and probes alike, so the timeline shows it.
  const loopDelays: { at: number; maxMs: number }[] = [];
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  const loopTimer = setInterval(() => {
    loopDelays.push({ at: Date.now(), maxMs: loop.max / 1e6 });
    loop.reset();
  }, 1_000);
  const transitions: FailoverSeries['transitions'] = [];
  const fleetEvents: { at: number; kind: string; outcome: string }[] = [];
  let failed = 0;
  const sdks: Breakerbox[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  for (let i = 0; i < INSTANCES; i++) {
    const bb = createBreakerbox({ telemetry: { url: server.url, token: ingest, service: 'drafts', instance: `pod-${i}` }, fleet: feed ? {} : false });
    bb.onWarning(() => undefined);
    bb.onCall((e) => calls.push({ at: Date.now(), level: e.level, ok: e.ok, durationMs: e.durationMs, timeout: e.errorClass === 'timeout', attempts: e.attempts }));
    bb.onFleetDecision((o) => fleetEvents.push({ at: Date.now(), kind: o.decision?.kind ?? 'invalid', outcome: o.outcome }));
    const pod = i;
    bb.policy({ provider: 'openai', endpoint: 'chat', model: PRIMARY }).breaker.onStateChange((t) => transitions.push({ at: Date.now(), pod, from: t.from, to: t.to, reason: t.reason }));
    sdks.push(bb);
    const client = new OpenAI({ apiKey: APP_KEY, baseURL: `${fake.url}/v1`, maxRetries: 0, fetch: bb.fetch({ provider: 'openai', fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } }) });
    const next = () => {
      if (stopped) return;
      const t = setTimeout(() => {
        timers.delete(t);
        next();
        client.chat.completions.create({ model: PRIMARY, max_tokens: 16, messages: [{ role: 'user', content: 'Draft a reply to ticket 4711.' }] }).catch(() => void failed++);
      }, (-Math.log(1 - Math.random()) / RATE_PER_S) * 1000);
      timers.add(t);
    };
    next();
  }

  const probes = (from: number) =>
    sqlOf(app).prepare(`SELECT p.ts, p.location, p.outcome FROM probe_events p JOIN keys k ON k.id = p.key_id WHERE k.model = ? AND p.ts >= ? ORDER BY p.ts`).all(PRIMARY, from) as { ts: number; location: string; outcome: string }[];
  try {
    // Warm: both probers have probed the primary, and the fleet has a minute of traffic.
    const warmStart = Date.now();
    while (new Set(probes(warmStart - 3_600_000).map((p) => p.location)).size < 2 && Date.now() - warmStart < 150_000) await sleep(1000);
    await sleep(30_000);
    const t0 = Date.now();
    log(`  ${feed ? 'with' : 'without'} the feed: outage starts`);
    fake.script(PRIMARY, { kind: 'status', status: 503, latencyMs: 60 }, { persistent: true });
    await sleep(outageMs);
    const t1 = Date.now();
    fake.script(PRIMARY, { kind: 'ok', latencyMs: 150, tokens: 8 }, { persistent: true });
    log(`  ${feed ? 'with' : 'without'} the feed: provider back`);
    await sleep(afterMs);

    // The application's requests carry the official client's x-stainless-* headers; the probers' do not.
    const primaryAttempts = fake.attemptsFor(PRIMARY).filter((a) => a.ts >= t0 && a.ts < t1 && a.headers['x-stainless-lang'] !== undefined).length;
    // Recovery is confirmed when every location has probed ok since the provider came back.
    const after = probes(t1);
    const firstOk = LOCATIONS.map((l) => after.find((p) => p.location === l && p.outcome === 'ok')?.ts);
    const okProbe = firstOk.every((t) => t !== undefined) ? { ts: Math.max(...(firstOk as number[])) } : undefined;
    let backAt: number | null = null;
    for (let t = t1; t + 5_000 <= Date.now(); t += 1_000) {
      const inWindow = calls.filter((c) => c.at >= t && c.at < t + 5_000);
      if (inWindow.length > 0 && inWindow.filter((c) => c.level === 0).length / inWindow.length > 0.5) {
        backAt = t + 5_000;
        break;
      }
    }
    const timeline = timelineOf(t0, t1, { loopDelays, transitions, fleetEvents, calls, attempts: fake.attemptsFor(PRIMARY).filter((a) => a.ts >= t0 && a.ts < t1 && a.headers['x-stainless-lang'] !== undefined).map((a) => a.ts), probes: probes(t0 - 120_000), decisions: sqlOf(app).prepare('SELECT kind, issued_at, updated_at, ended_at FROM fleet_decisions ORDER BY issued_at').all() as { kind: string; issued_at: number; updated_at: number; ended_at: number | null }[], suspicions: (sqlOf(app).prepare('SELECT started_at, triggered_at, reason FROM suspicions ORDER BY triggered_at').all() as { started_at: number; triggered_at: number; reason: string }[]) });
    const metrics = (await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${(await app.storage.tokens.create('bench-read', ['read'])).secret}` } })).body;
    const sum = (re: RegExp) => [...metrics.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0);
    return {
      feed,
      calls: calls.length,
      failedCalls: failed,
      primaryAttemptsInOutage: primaryAttempts,
      // From the outage start: the warm-up's first calls (this process starting 20 SDKs, a collector and two probers) are not the scenario.
      timeoutWaits: calls.filter((c) => c.at >= t0 && (c.timeout || c.durationMs > 5_000)).length,
      probesOkAfterRecoveryS: okProbe ? (okProbe.ts - t1) / 1000 : null,
      backAfterProbesS: backAt !== null && okProbe ? (backAt - okProbe.ts) / 1000 : null,
      decisionsSent: sum(/^breakerbox_fleet_decisions_sent_total\{[^}]*\} (\d+)/gm),
      fleetApplied: sdks.reduce((a, bb) => a + (bb.fleetStats()?.applied ?? 0), 0),
      timeline,
      series: {
        t0, t1, instances: INSTANCES, transitions,
        primaryAttempts: fake.attemptsFor(PRIMARY).filter((a) => a.ts >= t0 && a.headers['x-stainless-lang'] !== undefined).map((a) => a.ts),
        probes: probes(t0 - 120_000),
        recoveredAppliedAt: fleetEvents.find((e) => e.kind === 'recovered' && e.outcome === 'applied')?.at ?? null,
      },
    };
  } finally {
    stopped = true;
    clearInterval(loopTimer);
    loop.disable();
    for (const t of timers) clearTimeout(t);
    for (const s of stopProbers) s();
    await Promise.allSettled(probers);
    await Promise.all(sdks.map((bb) => bb.close(2_000)));
    await server.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface TimelineInput {
  loopDelays: { at: number; maxMs: number }[];
  transitions: { at: number; pod: number; to: string; reason: string }[];
  fleetEvents: { at: number; kind: string; outcome: string }[];
  calls: { at: number; level: number; attempts: number; durationMs: number; timeout: boolean }[];
  attempts: number[];
  probes: { ts: number; location: string; outcome: string }[];
  decisions: { kind: string; issued_at: number; updated_at: number; ended_at: number | null }[];
  suspicions: { started_at: number; triggered_at: number; reason: string }[];
}

/** Where the time goes: probes, suspicions, decisions and breakers around the outage, and what the primary attempts were. */
function timelineOf(t0: number, t1: number, d: TimelineInput): string[] {
  const s = (t: number) => (t >= t1 ? `t1+${((t - t1) / 1000).toFixed(1)}` : `t0${t >= t0 ? '+' : ''}${((t - t0) / 1000).toFixed(1)}`);
  const out: string[] = [];
  out.push(`probes: ${d.probes.filter((p) => p.ts >= t0 - 60_000 && p.ts < t1 + 90_000).map((p) => `${p.location}:${p.outcome}@${s(p.ts)}`).join(' ')}`);
  out.push(`suspicions: ${d.suspicions.filter((x) => x.triggered_at >= t0 - 60_000).map((x) => `${x.reason} started ${s(x.started_at)} triggered ${s(x.triggered_at)}`).join('; ') || 'none'}`);
  out.push(`decisions: ${d.decisions.map((x) => `${x.kind} issued ${s(x.issued_at)}${x.ended_at ? ` ended ${s(x.ended_at)}` : ''}`).join('; ') || 'none'}`);
  const firstFleet = (kind: string) => d.fleetEvents.find((e) => e.kind === kind && e.outcome === 'applied');
  for (const k of ['outage', 'recovered']) {
    const e = firstFleet(k);
    const n = d.fleetEvents.filter((x) => x.kind === k && x.outcome === 'applied').length;
    out.push(`first ${k} applied: ${e ? s(e.at) : 'never'} (${n} applications; ignored ${d.fleetEvents.filter((x) => x.kind === k && x.outcome === 'ignored').length})`);
  }
  const firstOpen = new Map<number, number>();
  for (const t of d.transitions) if (t.at >= t0 && t.to === 'open' && !firstOpen.has(t.pod)) firstOpen.set(t.pod, t.at);
  const opens = [...firstOpen.values()].sort((a, b) => a - b);
  out.push(`own breaker first open: ${opens.length} pods, first ${opens[0] ? s(opens[0]) : '-'} median ${opens.length ? s(opens[Math.floor(opens.length / 2)]!) : '-'} last ${opens.length ? s(opens.at(-1)!) : '-'}`);
  const inOutage = d.transitions.filter((t) => t.at >= t0 && t.at < t1);
  const count = (pred: (t: { to: string; reason: string }) => boolean) => inOutage.filter(pred).length;
  out.push(`transitions in the outage: ${count((t) => t.to === 'open')} open (${count((t) => t.to === 'open' && t.reason === 'probe_failed')} probe_failed), ${count((t) => t.to === 'half_open')} half_open, ${count((t) => t.to === 'forced_open')} forced_open, ${count((t) => t.to === 'closed')} closed`);
  const before = d.attempts.filter((a) => opens.length === 0 || a < (opens[Math.floor(opens.length / 2)] ?? Infinity)).length;
  const per10 = [] as number[];
  for (let t = t0; t < t1; t += 10_000) per10.push(d.attempts.filter((a) => a >= t && a < t + 10_000).length);
  out.push(`primary attempts in the outage: ${d.attempts.length} (before the median first open: ${before}); per 10 s: ${per10.join(' ')}`);
  const per10s = (from: number, to: number, f: (a: number, b: number) => string) => {
    const out: string[] = [];
    for (let t = from; t < to; t += 10_000) out.push(f(t, t + 10_000));
    return out.join(' ');
  };
  const slow = (c: { durationMs: number; timeout: boolean }) => c.timeout || c.durationMs > 5_000;
  out.push(`calls over 5 s (or timeout) per 10 s from t0-60: ${per10s(t0 - 60_000, t1 + 90_000, (a, b) => String(d.calls.filter((c) => c.at >= a && c.at < b && slow(c)).length))}`);
  out.push(`event-loop delay, worst ms per 10 s from t0-60: ${per10s(t0 - 60_000, t1 + 90_000, (a, b) => Math.max(0, ...d.loopDelays.filter((x) => x.at >= a && x.at < b).map((x) => x.maxMs)).toFixed(0))}`);
  const outageCalls = d.calls.filter((c) => c.at >= t0 && c.at < t1);
  out.push(`calls in the outage: ${outageCalls.length}, attempts per call ${(outageCalls.reduce((a, c) => a + c.attempts, 0) / Math.max(1, outageCalls.length)).toFixed(2)}, served by the primary ${outageCalls.filter((c) => c.level === 0).length}`);
  const back = d.transitions.filter((t) => t.at >= t1 && t.to === 'closed');
  const firstClose = new Map<number, number>();
  for (const t of back) if (!firstClose.has(t.pod)) firstClose.set(t.pod, t.at);
  const closes = [...firstClose.values()].sort((a, b) => a - b);
  out.push(`closed again after t1: ${closes.length} pods, first ${closes[0] ? s(closes[0]) : '-'} median ${closes.length ? s(closes[Math.floor(closes.length / 2)]!) : '-'} last ${closes.length ? s(closes.at(-1)!) : '-'}`);
  return out;
}
