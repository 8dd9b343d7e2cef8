/**
 * End-to-end proof of `npm run demo`: the demo runs its timeline once with `--fast` as a
 * child process (collector, fake providers, the SDK fleet, two prober processes), and each
 * phase is checked only through the collector's public read APIs — the path a user's own
 * services and probers take. The board is photographed during the outage
 * (`UPDATE_DEMO_SCREENSHOT=1` writes `docs/demo-outage.png`, otherwise `test-artifacts/`).
 *
 * What bounds the run (under five minutes): the `--fast` timeline (20 + 45 + 30 + 20 + 30 +
 * 25 s), then one to two minutes while the last phase's alerts resolve: their windows are
 * 60 s, the collector's minimum, over data counted in whole minutes. The flapping alert
 * looks back one minute with `--fast` (five in the normal timeline), and with `--fast` a
 * breaker's cooldown stays 10 s, so none is held open past its phase. Each phase lasts about
 * twice what its checks take on a loaded machine (logged as "after N s of a M s phase" and
 * "N s before its deadline"); the flapping phase needs its five bursts. The model retirement
 * adds checks, not waiting: its events fall inside the flapping and outage phases, and its
 * test runs after the quota phase's. Shorter phases would not compress it much further (the
 * checks wait for telemetry intervals, probe rounds and alert windows); one scaled clock for
 * every process of the demo would, but the prober and the fake providers' latencies run on
 * the wall clock (only the collector and the SDK take a Clock).
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '../../sdk/index.ts';
import { FT_TRIAGE, RETIRING, SUCCESSOR, keyOf } from '../../demo/catalog.ts';
import { eventAtMs, eventOf } from '../../demo/timeline.ts';
import { artifact, ensureBuilt, launchBrowser } from '../dashboard/browser-harness.ts';
import { ROOT, alive, eventually, readApi, startDemoProcess, type AlertEntry, type DemoProcess, type PhaseSeen, type VerdictEntry } from './demo-harness.ts';

const GPT_4O = keyOf('gpt-4o');
const GPT_4O_MINI = keyOf('gpt-4o-mini');
const HAIKU = keyOf('claude-3-5-haiku-20241022');
const SONNET = keyOf('claude-sonnet-4-20250514');
const TRIAGE = keyOf(FT_TRIAGE);
const PRIMARIES = [GPT_4O, GPT_4O_MINI, HAIKU, SONNET, TRIAGE];
/** The pinned snapshot the demo retires, and its successor. */
const PINNED = keyOf(RETIRING);
const NEXT = keyOf(SUCCESSOR);
/** From the retirement to the migration, ms (`--fast`). */
const RETIRED_FOR_MS = eventAtMs(eventOf('migration'), true) - eventAtMs(eventOf('retirement'), true);

/** Checks of a phase may finish a little after it ends: data arrives every few seconds. */
const GRACE_MS = 8_000;
const MINUTE = 60_000;

const same = (a: BreakerKey | null, b: BreakerKey) => !!a && a.provider === b.provider && a.endpoint === b.endpoint && a.model === b.model;
const brief = (v: VerdictEntry | undefined) =>
  v ? JSON.stringify({ verdict: v.verdict, hint: v.hint, clients: v.clients, probes: v.probes, evidence: v.evidence }) : 'no entry for the key';

let demo: DemoProcess;
let api: ReturnType<typeof readApi>;
/** When the timeline's first phase started (ms since the epoch): the logged times count from it. */
let t0: number;
const sinceStart = (at: number) => `${Math.round((at - t0) / 1000)} s into the timeline`;

/** Waits for the phase, then for `key`'s verdict over the phase (so far) to satisfy `accept`. */
async function verdictDuring(phase: PhaseSeen, key: BreakerKey, what: string, accept: (v: VerdictEntry) => boolean): Promise<VerdictEntry> {
  let last: VerdictEntry | undefined;
  const found = await eventually(
    `${phase.id}: ${key.model} ${what}`,
    phase.end + GRACE_MS,
    async () => {
      const to = Math.max(phase.start + 1_000, Math.min(Date.now(), phase.end));
      last = (await api.verdicts(phase.start, to)).find((v) => same(v.key, key));
      return last && accept(last) ? last : undefined;
    },
    () => brief(last),
  );
  // How much of the phase it took: the margin a slower machine has left.
  console.info(`demo ${phase.id}: ${key.model} ${what} after ${Math.round((Date.now() - phase.start) / 1000)} s of a ${(phase.end - phase.start) / 1000} s phase`);
  return found;
}

/** Waits for an alert of `rule` on `key` in `state`. */
async function alertOn(rule: string, key: BreakerKey, state: AlertEntry['state'], deadline: number): Promise<AlertEntry> {
  let seen: AlertEntry[] = [];
  const found = await eventually(
    `${rule} alert ${state} on ${key.model}`,
    deadline,
    async () => {
      seen = await api.alerts(state);
      return seen.find((a) => a.rule === rule && same(a.key, key));
    },
    () => JSON.stringify(seen.map((a) => `${a.rule} ${a.key?.model ?? a.key} ${a.state}`)),
  );
  // The margin a slower machine has left, as verdictDuring logs it.
  console.info(`demo: ${rule} alert ${state} on ${key.model} seen ${sinceStart(Date.now())}, ${Math.round((deadline - Date.now()) / 1000)} s before its deadline`);
  return found;
}

/** Signs in to the dashboard with the read token and photographs the board once gpt-4o shows its outage. */
async function photographOutage(until: number): Promise<string> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const signIn = await page.request.post(`${demo.url}/api/session`, { data: { token: demo.token } });
    expect(signIn.status()).toBe(200);
    await page.goto(`${demo.url}/`);
    const tile = page.locator(`[data-testid="key-tile"][data-model="${GPT_4O.model}"][data-verdict="provider_outage"]`);
    await tile.waitFor({ timeout: Math.max(5_000, until - Date.now()) });
    const file = process.env.UPDATE_DEMO_SCREENSHOT === '1' ? join(ROOT, 'docs', 'demo-outage.png') : artifact('demo-outage.png');
    await page.screenshot({ path: file, fullPage: true });
    return file;
  } finally {
    await browser.close();
  }
}

describe('npm run demo -- --fast --once', () => {
  beforeAll(async () => {
    await ensureBuilt();
    demo = await startDemoProcess(['--fast', '--once', '--port', '0'], { ...process.env });
    api = readApi(demo.url, demo.token);
    t0 = (await demo.phase('healthy', 60_000)).start;
  }, 180_000);

  afterAll(() => {
    if (!demo) return;
    if (demo.child.exitCode === null && demo.child.signalCode === null) demo.child.kill('SIGKILL');
    for (const pid of demo.proberPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (existsSync(demo.dir)) rmSync(demo.dir, { recursive: true, force: true });
  });

  it('prints the dashboard URL and a read token that signs in to the dashboard', async () => {
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(demo.proberPids).toHaveLength(2);
    const res = await fetch(`${demo.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: demo.token }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/bb_session=/);
  });

  it('all healthy: every primary model turns healthy and no alert fires but the retiring snapshot\'s model_retiring', async () => {
    const phase = await demo.phase('healthy', 60_000);
    for (const key of PRIMARIES) await verdictDuring(phase, key, 'healthy', (v) => v.verdict === 'healthy');
    const firing = await api.alerts('firing');
    expect(firing.filter((a) => !(a.rule === 'model_retiring' && same(a.key, PINNED)))).toEqual([]);
  }, 2 * MINUTE);

  it('before its date the retiring snapshot warns: model_retiring as a warning naming ticket-drafts and the successor, and Lifecycle lists its date', async () => {
    const phase = await demo.phase('healthy', 60_000);
    // The retirement is on the calendar from the start: a scheduled outage is seen coming.
    const warning = await alertOn('model_retiring', PINNED, 'firing', phase.end + GRACE_MS);
    expect(warning.fired_at).toBeLessThan(demo.retireAt);
    expect(warning.severity).toBe('warning');
    expect(warning.summary).toContain(`retires on ${new Date(demo.retireAt).toISOString()}, within a day; still called by ticket-drafts`);
    expect(warning.summary).toContain(`successor: ${SUCCESSOR}`);
    const listed = (await api.lifecycle()).find((m) => m.provider === PINNED.provider && m.model === RETIRING);
    expect(listed).toMatchObject({
      services: ['ticket-drafts'],
      retirement: { shutdown: new Date(demo.retireAt).toISOString(), shutdown_at: demo.retireAt, successor: SUCCESSOR, source: 'config' },
      days_left: 1,
      status: 'warning',
    });
  }, 2 * MINUTE);

  it('flapping: claude-3-5-haiku breakers open and close over and over, and the flapping alert fires', async () => {
    const phase = await demo.phase('flapping', 2 * MINUTE);
    const alert = await alertOn('flapping', HAIKU, 'firing', phase.end + 20_000);
    expect(alert.fired_at).toBeGreaterThanOrEqual(phase.start);
    const detail = await api.key(HAIKU, phase.start, Date.now());
    expect(detail.transitions.filter((t) => t.to === 'open').length).toBeGreaterThanOrEqual(4);
    expect(detail.transitions.filter((t) => t.to === 'closed' && t.reason === 'probes_succeeded').length).toBeGreaterThanOrEqual(2);
  }, 3 * MINUTE);

  it('provider outage: gpt-4o turns provider_outage, its breakers open and claude-sonnet-4 serves draft-reply', async () => {
    const phase = await demo.phase('outage', 3 * MINUTE);
    const photo = photographOutage(phase.end + 30_000);
    // Breaker transitions are pushed at once and on-demand probes answer within seconds, so the
    // verdict can stand before the SDKs' first windows of the phase (with its 503s) arrive: wait for those.
    // The open share is of instance-time in the range read: a breaker open for a few hundred ms of
    // a minute rounds to 0, so the verdict is awaited until the open time shows too.
    const v = await verdictDuring(phase, GPT_4O, 'provider_outage from both locations, with the 503s counted and breakers open',
      (e) => e.verdict === 'provider_outage' && e.hint === null && (e.clients.errors.server ?? 0) > 0 && (e.clients.open_share ?? 0) > 0);
    expect(Object.values(v.probes).map((p) => p.status)).toEqual(['failing', 'failing']);
    // The fallback's tasks arrive with the instances' next windows, possibly after the verdict.
    let draft: Awaited<ReturnType<typeof api.cost>> | undefined;
    await eventually(
      'outage: draft-reply served by its level-2 fallback',
      phase.end + GRACE_MS,
      async () => {
        draft = await api.cost('draft-reply', phase.start, Math.max(phase.start + 1_000, Date.now()));
        return (draft?.levels['2'] ?? 0) > 0 ? draft : undefined;
      },
      () => JSON.stringify(draft?.levels ?? null),
    );
    await alertOn('open_share', GPT_4O, 'firing', phase.end + GRACE_MS);
    // The provider ticket of the outage: the fake provider's own request ids (OpenAI's
    // `x-request-id` format), from the SDKs' failed calls and from both probe locations.
    let lastTicket = 'no incident of gpt-4o yet';
    const ticket = await eventually('a provider ticket of the gpt-4o outage with request ids from the calls and both probe locations', phase.end + GRACE_MS, async () => {
      const to = Math.max(phase.start + 1_000, Date.now());
      const incident = (await api.incidents(phase.start, to)).find((i) => i.keys.some((k) => same(k.key, GPT_4O)));
      if (!incident) return undefined;
      const text = (lastTicket = await api.ticket(incident.id, phase.start, to));
      const callIds = text.split('\n').filter((l) => l.startsWith('- ') && l.includes(`  ${GPT_4O.model}  503 `) && /  req_[0-9a-f]{32}$/.test(l));
      const probeIds = text.split('\n').filter((l) => /^ {2}- \S+Z {2}503 \S+ {2}req_[0-9a-f]{32}$/.test(l));
      const locations = text.split('\n').filter((l) => new RegExp(`^- [^,]+, ${GPT_4O.model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: [1-9]\\d* of \\d+ failed`).test(l));
      return callIds.length > 0 && probeIds.length > 0 && locations.length === 2 ? text : undefined;
    }, () => lastTicket);
    expect(ticket).toContain('Incident report for openai support');
    console.info(`demo outage ticket:\n${ticket}`);
    expect(existsSync(await photo)).toBe(true);
  }, 4 * MINUTE);

  it('self-inflicted: with support-triage out of quota, gpt-4o-mini turns self_inflicted with hint quota while the probes are served', async () => {
    const phase = await demo.phase('quota', 5 * MINUTE);
    const v = await verdictDuring(phase, GPT_4O_MINI, 'self_inflicted (quota)', (e) => e.verdict === 'self_inflicted' && e.hint === 'quota');
    expect(v.clients.errors.quota).toBeGreaterThan(0);
    expect(Object.values(v.probes).map((p) => p.status)).toEqual(['ok', 'ok']);
    expect(v.clients.open_share).toBe(0);
    const detail = await api.key(GPT_4O_MINI, phase.start, Math.max(phase.start + 1_000, Date.now()));
    const degraded = Object.fromEntries(detail.services.map((s) => [s.service, s.degraded]));
    expect(degraded).toEqual({ 'support-triage': true, 'ticket-drafts': false });
  }, 6 * MINUTE);

  it('model retirement: after its instant the snapshot is model_retired and pages critical; the shadow comparison projects the bill; the migration serves it', async () => {
    const retired = await demo.event('retirement', 8 * MINUTE);
    expect(Math.abs(retired - demo.retireAt)).toBeLessThan(5_000);
    const span: PhaseSeen = { id: 'retirement', index: 0, start: demo.retireAt, end: demo.retireAt + RETIRED_FOR_MS };

    // The hint names the retirement, not a bug in the request; probes are not needed (our own class).
    const v = await verdictDuring(span, PINNED, 'self_inflicted with hint model_retired', (e) => e.verdict === 'self_inflicted' && e.hint === 'model_retired');
    expect(v.clients.errors.bad_request).toBeGreaterThan(0);
    expect(v.evidence.join('\n')).toContain(`move to ${SUCCESSOR}`);

    // The same alert that warned turns critical in place once the retired model is still called.
    let last: AlertEntry | undefined;
    const critical = await eventually(`model_retiring critical on ${RETIRING}`, span.end + GRACE_MS, async () => {
      last = (await api.alerts('firing')).find((a) => a.rule === 'model_retiring' && same(a.key, PINNED));
      return last?.severity === 'critical' && last.hint === 'model_retired' ? last : undefined;
    }, () => JSON.stringify(last));
    expect(critical.fired_at).toBeLessThan(demo.retireAt);
    expect(critical.summary).toMatch(new RegExp(`retired on \\S+ and is still called: [\\d,]+ calls in the last 1 minute by ticket-drafts; successor: ${SUCCESSOR.replaceAll('.', '\\.')}`));
    expect((await api.lifecycle()).find((m) => m.model === RETIRING)).toMatchObject({ status: 'retired', retirement: { successor: SUCCESSOR } });

    // Shadow traffic before the date: the successor measured on polish-reply's own requests.
    const pair = (await api.shadow('15m')).find((p) => same(p.key, PINNED) && same(p.candidate, NEXT));
    expect(pair, 'a shadow pair gpt-4o-2024-05-13 -> gpt-4.1').toBeDefined();
    console.info(`demo retirement: shadow ${pair!.pairs} pairs; ${pair!.bill_statement}`);
    expect(pair!.services).toEqual(['ticket-drafts']);
    expect(pair!.pairs).toBeGreaterThan(0);
    expect(pair!.primary.truncation_share?.value).toBe(0);
    // One successor answer in four needs more than polish-reply's max_tokens 400: cut.
    expect(pair!.shadow.truncation_share?.value).toBeGreaterThan(0);
    expect(pair!.shadow.output_tokens_per_call).toBeGreaterThan(pair!.primary.output_tokens_per_call!);
    expect(pair!.bill).not.toBeNull();
    expect(pair!.bill!.ratio).toBeGreaterThan(1);
    expect(pair!.bill!.projected_usd_per_month).toBeGreaterThan(pair!.bill!.primary_usd_per_month);
    expect(pair!.bill_statement).toMatch(/raises the bill by ×/);

    // The migration ships: polish-reply calls the successor with room for its longer answers.
    const migrated = await demo.event('migration', Math.max(5_000, span.end - Date.now() + GRACE_MS));
    const after: PhaseSeen = { id: 'migration', index: 0, start: migrated, end: migrated + 30_000 };
    // Without the raised max_tokens one call in four would be cut: 20 calls without one say it was raised.
    await verdictDuring(after, NEXT, 'called by ticket-drafts, no answer cut', (e) => e.clients.calls >= 20 && !(e.clients.errors.truncated! > 0));
  }, 9 * MINUTE);

  it('slow success: claude-sonnet-4 breakers open on slow calls, with no failed call', async () => {
    const phase = await demo.phase('slow', 6 * MINUTE);
    let transitions: string[] = [];
    await eventually(
      'slow: a claude-sonnet-4 breaker opening on slow calls',
      phase.end + GRACE_MS,
      async () => {
        const detail = await api.key(SONNET, phase.start, Math.max(phase.start + 1_000, Date.now()));
        transitions = detail.transitions.map((t) => `${t.from}->${t.to} ${t.reason}`);
        return detail.transitions.find((t) => t.from === 'closed' && t.to === 'open' && t.reason === 'slow_calls');
      },
      () => transitions.join(', '),
    );
    // The breaker's transition is pushed at once, before the SDKs' windows with the slow calls
    // arrive: wait for those, as the outage phase waits for its 503s.
    const v = await verdictDuring(phase, SONNET, 'provider_outage on slow calls', (e) => e.verdict === 'provider_outage' && e.hint === null && e.clients.slow >= 5);
    expect(v.clients.slow).toBeGreaterThanOrEqual(5);
    expect(v.clients.failed).toBe(0);
    expect(Object.values(v.probes).map((p) => p.status)).toEqual(['failing', 'failing']);
  }, 7 * MINUTE);

  it('failing fallback: the fine-tuned triage model is provider_outage and the critical fallback_failing alert fires on it', async () => {
    const phase = await demo.phase('fallback_failing', 7 * MINUTE);
    const alert = await alertOn('fallback_failing', TRIAGE, 'firing', phase.end + GRACE_MS);
    expect(alert.severity).toBe('critical');
    await verdictDuring(phase, TRIAGE, 'provider_outage', (e) => e.verdict === 'provider_outage' && e.hint === null);
  }, 8 * MINUTE);

  it('after the timeline every alert resolves: the flapping one a look-back (one minute) after the flapping stopped, model_retiring once the service migrated', async () => {
    const flapping = await demo.phase('flapping', MINUTE);
    await demo.line(/timeline done/, 8 * MINUTE);
    const resolved = await alertOn('flapping', HAIKU, 'resolved', flapping.end + 6 * MINUTE);
    expect(resolved.resolved_at).toBeGreaterThan(flapping.end);
    // model_retiring resolves retired_calls_s (60 s in the demo) after the snapshot's last call: the migration ended them.
    const retiring = await alertOn('model_retiring', PINNED, 'resolved', Date.now() + MINUTE);
    expect(retiring.resolved_at).toBeGreaterThan(demo.retireAt);
    let open: AlertEntry[] = [];
    await eventually(
      'every alert resolved',
      Date.now() + 2 * MINUTE,
      async () => {
        open = [...(await api.alerts('firing')), ...(await api.alerts('pending'))];
        return open.length === 0 ? true : undefined;
      },
      () => JSON.stringify(open.map((a) => a.summary)),
    );
    // What bounds the run's tail: the last alert to resolve.
    const last = await demo.phase('fallback_failing', MINUTE);
    for (const a of (await api.alerts('resolved')).sort((x, y) => x.resolved_at! - y.resolved_at!)) {
      console.info(`demo: ${a.rule} on ${a.key?.model ?? 'no key'} resolved ${sinceStart(a.resolved_at!)}, ${Math.round((a.resolved_at! - last.end) / 1000)} s after the timeline ended`);
    }
  }, 10 * MINUTE);

  it('SIGINT stops the probers, closes the collector and removes the temporary database', async () => {
    expect(alive(demo.child.pid!)).toBe(true);
    demo.child.kill('SIGINT');
    const exit = await Promise.race([demo.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000))]);
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of demo.proberPids) expect(alive(pid)).toBe(false);
    expect(existsSync(demo.dir)).toBe(false);
    expect(demo.lines.some((l) => l.includes('stopped, temporary database removed'))).toBe(true);
  }, MINUTE);
});
