/**
 * Failover bench: the 17 failure modes of the SDK's scenario tests, each against a
 * fault-injecting fake provider (`test/support/`), on four APIs — chat completions and
 * the Responses API through `openai`, messages through `@anthropic-ai/sdk`, the Gemini API
 * through `@google/genai` (SSE streams; its fake speaks Google's wire), Bedrock through
 * `@ai-sdk/amazon-bedrock` — one table
 * per API, scored for breakerbox at its defaults next to the official client alone and
 * the client plus a hand-written fallback, all in the same run:
 *
 * - pass: a complete answer (every word once, the expected finish) within bounded attempts;
 * - safe: a clean error, within the bench's patience;
 * - fail: a hang (no outcome within the patience) or a truncated / repeated "success".
 *
 * Modes 16 and 17 repeat a cut / a stall on every attempt at the primary: only a rescue
 * that moves on to the fallback can finish the answer.
 *
 * Scaling: modes 1–13 and 15–17 run with the README's timeouts and the faults' durations
 * both scaled 1/10 (a 20 s first token becomes 2 s against an 800 ms limit; the stall is
 * caught by a 500 ms idle limit), with a patience of 6 s (60 s unscaled); retry delays
 * and Retry-After are real. Mode 14, the outage, runs in real time, unscaled: primary
 * down 60 s at one request every 4 s, observed 40 s past recovery, the three clients at
 * once against three fakes per API — about 100 s, while the other modes run alongside.
 *
 * Amazon Bedrock Converse runs the same modes through `@ai-sdk/amazon-bedrock` + `ai@7`
 * (SigV4-signed, verified by the fake; the fallback re-signed with the `signer` option).
 * The run ends with the fetch wrapper's overhead per call on each API (`failover-overhead.ts`).
 *
 * Run: `npm run bench -- failover` (`-- failover --overhead-only` for the overhead table alone).
 */
import { startFakeProvider, type Fault, type FakeProvider } from '../support/fake-provider.ts';
import { tokenText } from '../support/fake-provider-bodies.ts';
import { APIS, type BenchApi, type BenchRequest } from './failover-apis.ts';
import { breakerbox, handFallback, plainClient, readmeTimeouts, type Contender, type Outcome } from './failover-contenders.ts';
import { fetchOverheadPerApi } from './failover-overhead.ts';

if (process.argv.includes('--overhead-only')) {
  await fetchOverheadPerApi();
  process.exit(0);
}

type Score = 'pass' | 'safe' | 'fail';
const SCALE = 0.1;
const PATIENCE_MS = 6_000;
/** Attempts one request may take and still count as bounded (3 on the primary, 3 on the fallback). */
const MAX_ATTEMPTS = 6;

interface Mode {
  name: string;
  stream: boolean;
  tokens: number;
  /** Faults for the primary; `persistent` repeats them. */
  primary: Fault[];
  persistent?: boolean;
  /** The answer ends on a content filter (the API's own finish for it). */
  filtered?: boolean;
  /** Extra condition for a pass (e.g. the fail-over accounting). */
  check?: (o: Outcome & { kind: 'answer' }, attempts: number, c: Contender, api: BenchApi) => string | undefined;
}

const MODES: Mode[] = [
  { name: '429 with Retry-After (1 s), once', stream: false, tokens: 12, primary: [{ kind: 'rate_limit', retryAfter: 1 }] },
  { name: '429 without Retry-After, persistent', stream: false, tokens: 12, primary: [{ kind: 'rate_limit' }], persistent: true },
  { name: '500 once', stream: false, tokens: 12, primary: [{ kind: 'status', status: 500 }] },
  { name: '503 persistent', stream: false, tokens: 12, primary: [{ kind: 'status', status: 503 }], persistent: true },
  { name: 'reset before headers, once', stream: false, tokens: 12, primary: [{ kind: 'reset' }] },
  { name: 'no response at all, persistent', stream: false, tokens: 12, primary: [{ kind: 'no_response' }], persistent: true },
  { name: 'slow first token (20 s), persistent', stream: true, tokens: 12, primary: [{ kind: 'slow_first_token', ms: 20_000 * SCALE }], persistent: true },
  { name: 'stream cut after 40 of 60 tokens', stream: true, tokens: 60, primary: [{ kind: 'cut_stream', afterTokens: 40 }] },
  { name: 'stream stall after 20 tokens', stream: true, tokens: 30, primary: [{ kind: 'stall', afterTokens: 20 }] },
  { name: 'one malformed chunk', stream: true, tokens: 12, primary: [{ kind: 'malformed_chunk', afterTokens: 5 }] },
  { name: 'no end event (connection left open)', stream: true, tokens: 12, primary: [{ kind: 'no_end_event', keepOpen: true }] },
  { name: 'context length, persistent', stream: false, tokens: 12, primary: [{ kind: 'context_length' }], persistent: true },
  { name: 'content filter (finish)', stream: true, tokens: 12, primary: [{ kind: 'content_filter' }], filtered: true },
  {
    name: 'fail-over accounting (503 persistent)',
    stream: false,
    tokens: 12,
    primary: [{ kind: 'status', status: 503 }],
    persistent: true,
    check: (o, attempts, c, api) => {
      if (o.model !== api.fallback) return `served by ${o.model}`;
      if (!c.calls) return undefined; // the peers report nothing to check
      if (o.reportedAttempts !== attempts) return `x-breakerbox-attempts ${o.reportedAttempts} vs ${attempts} sent`;
      const call = c.calls.at(-1);
      if (call?.attempts !== attempts || call.model !== api.fallback || call.level === 0) return 'onCall does not match what was sent';
      return undefined;
    },
  },
  // The same break on every attempt at the primary: served by the fallback (rescue falls through the chain).
  { name: 'stream cut after 40 of 60 tokens, persistent', stream: true, tokens: 60, primary: [{ kind: 'cut_stream', afterTokens: 40 }], persistent: true },
  { name: 'stream stall after 20 tokens, persistent', stream: true, tokens: 30, primary: [{ kind: 'stall', afterTokens: 20 }], persistent: true },
];

function words(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += tokenText(i);
  return s;
}

type MakeContender = (api: BenchApi, fake: FakeProvider, timeoutScale: number) => Contender;
const CONTENDERS: MakeContender[] = [(a, f, s) => breakerbox(a, f, readmeTimeouts(s)), (a, f) => plainClient(a, f), (a, f) => handFallback(a, f)];

async function withPatience(c: Contender, req: BenchRequest, ms: number): Promise<Outcome> {
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(new Error('patience')), ms);
  try {
    return await c.send(req, ac.signal);
  } finally {
    clearTimeout(t);
  }
}

async function runMode(api: BenchApi, m: Mode, make: MakeContender): Promise<{ score: Score; note: string }> {
  const fake = await startFakeProvider({ tokens: m.tokens });
  const c = make(api, fake, SCALE);
  try {
    fake.script(api.primary, m.primary, { persistent: m.persistent });
    const o = await withPatience(c, { model: api.primary, stream: m.stream }, PATIENCE_MS);
    const attempts = fake.attempts.length;
    if (o.kind === 'hang') return { score: 'fail', note: `hang (${o.text.length ? 'partial text, ' : ''}${attempts} attempts)` };
    if (o.kind === 'error') return { score: 'safe', note: `error after ${attempts} attempts: ${o.message.slice(0, 60)}` };
    const full = o.text === words(m.tokens);
    if (!full) return { score: 'fail', note: o.text.length > words(m.tokens).length ? 'repeated text' : 'truncated success' };
    const finish = m.filtered ? api.finishes.filter : api.finishes.ok;
    if (o.finish !== finish) return { score: 'fail', note: `finish ${o.finish}` };
    if (attempts > MAX_ATTEMPTS) return { score: 'safe', note: `${attempts} attempts` };
    const why = m.check?.(o, attempts, c, api);
    if (why) return { score: 'safe', note: why };
    return { score: 'pass', note: `${attempts} attempt${attempts === 1 ? '' : 's'}, ${o.model}` };
  } finally {
    await c.close();
    await fake.close();
  }
}

/** Mode 14 in real time: down 60 s, one request every 4 s, observed 40 s past recovery. */
async function runOutage(api: BenchApi, make: MakeContender) {
  const DOWN_MS = 60_000;
  const AFTER_MS = 40_000;
  const EVERY_MS = 4_000;
  const fake = await startFakeProvider({ tokens: 12 });
  const c = make(api, fake, 1);
  fake.script(api.primary, { kind: 'status', status: 503 }, { persistent: true });
  const t0 = Date.now();
  const recoverAt = t0 + DOWN_MS;
  const recovery = setTimeout(() => fake.clear(api.primary), DOWN_MS);
  const pending: Array<Promise<Outcome>> = [];
  for (let at = 0; at < DOWN_MS + AFTER_MS; at += EVERY_MS) {
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + at - Date.now())));
    pending.push(withPatience(c, { model: api.primary, stream: false }, 30_000));
  }
  const outcomes = await Promise.all(pending);
  clearTimeout(recovery);
  const primary = fake.attemptsFor(api.primary);
  const duringOutage = primary.filter((a) => a.ts < recoverAt).length;
  const back = primary.find((a) => a.ts >= recoverAt && a.status === 200);
  const backS = back ? (back.ts - recoverAt) / 1000 : undefined;
  const answered = outcomes.filter((o) => o.kind === 'answer' && o.text === words(12)).length;
  const hung = outcomes.filter((o) => o.kind === 'hang').length;
  await c.close();
  await fake.close();
  const score: Score = hung > 0 ? 'fail' : answered === outcomes.length && duringOutage <= 10 && backS !== undefined && backS <= 30 ? 'pass' : 'safe';
  return { score, duringOutage, backS, answered, requests: outcomes.length, hung };
}

const started = Date.now();
const names = ['breakerbox (defaults)', 'official client', 'official client + hand-written fallback'];
// The outages run in real time for every API and contender at once, beside the other modes.
const outages = Promise.all(APIS.map((api) => Promise.all(CONTENDERS.map((make) => runOutage(api, make)))));
const tables: Array<Array<{ mode: string; results: Array<{ score: Score; note: string }> }>> = [];
for (const api of APIS) {
  const rows: Array<{ mode: string; results: Array<{ score: Score; note: string }> }> = [];
  for (const m of MODES) rows.push({ mode: m.name, results: await Promise.all(CONTENDERS.map((make) => runMode(api, m, make))) });
  tables.push(rows);
}
const allOut = await outages;
console.log(`node ${process.version}; ${MODES.length + 1} failure modes x ${APIS.length} APIs; ${((Date.now() - started) / 1000).toFixed(0)} s`);
const summary: string[] = [];
APIS.forEach((api, k) => {
  const rows = tables[k]!;
  const out = allOut[k]!;
  rows.splice(13, 0, {
    mode: 'primary down 60 s, 1 request / 4 s',
    results: out.map((o) => ({
      score: o.score,
      note: `${o.answered}/${o.requests} answered, ${o.duringOutage} primary attempts in outage, back on primary ${o.backS === undefined ? 'never' : `after ${o.backS.toFixed(1)} s`}`,
    })),
  });
  console.log('');
  console.log(`### ${api.name}: ${api.primary}, fallback ${api.fallback}`);
  console.log('');
  console.log(`| # | failure mode | ${names.join(' | ')} |`);
  console.log(`|---|---|${names.map(() => '---').join('|')}|`);
  rows.forEach((r, i) => console.log(`| ${i + 1} | ${r.mode} | ${r.results.map((x) => `**${x.score}** (${x.note})`).join(' | ')} |`));
  const totals = names.map((_, j) => {
    const s = rows.map((r) => r.results[j]!.score);
    return `${s.filter((x) => x === 'pass').length} pass / ${s.filter((x) => x === 'safe').length} safe / ${s.filter((x) => x === 'fail').length} fail`;
  });
  console.log(`| | **total** | ${totals.join(' | ')} |`);
  console.log('');
  out.forEach((o, j) =>
    console.log(`outage, ${names[j]}: ${o.duringOutage} primary attempts during the 60 s outage (target <= 10), back on the primary ${o.backS === undefined ? 'never' : `${o.backS.toFixed(1)} s after recovery`} (target <= 30 s)`),
  );
  const bbPass = rows.filter((r) => r.results[0]!.score === 'pass').length;
  summary.push(`${api.name}: ${bbPass}/${rows.length}`);
});
console.log('');
console.log(`breakerbox at its defaults, pass per API: ${summary.join('; ')} (target: every mode on every API)`);
await fetchOverheadPerApi();
process.exit(0);
