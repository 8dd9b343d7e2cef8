/**
 * Shadow traffic (issue 28) through the official `openai` client: a share of real requests
 * is mirrored to a candidate model, and the caller's answer is never delayed, changed or
 * failed by it — whether the candidate hangs, fails, throws or answers garbage. Mirrors stop
 * while the primary's breaker is not closed, are never sent for fail-closed or
 * non-idempotent requests, are shed (not queued) when their slots are busy, and their
 * properties arrive as `shadow` events. Time is real but nothing is timed: the tests poll.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ask, readStream, rig, streamed, type Rig } from './scenario-helpers.ts';
import type { ShadowEvent } from '../../protocol/types.ts';
import { SUCCESSOR, scriptSuccessor } from '../support/fake-provider-successor.ts';
import type { Fault } from '../support/fake-provider.ts';
import { createBreakerbox } from '../../sdk/index.ts';
import { ShadowRunner } from '../../sdk/shadow/shadow-runner.ts';
import { bodyProperties } from '../../sdk/shadow/answer-properties.ts';
import { ShadowStats } from '../../sdk/shadow/shadow-stats.ts';

const PRIMARY = 'gpt-4o';
const CANDIDATE = 'gpt-4.1';
let r: Rig;
afterEach(async () => r?.close());

/** Polls `check` until it returns a value (fails after 5 s of polling). */
async function until<T>(check: () => T | undefined | false, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = check();
    if (v) return v;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

/** Collects shadow events until `pairs + dropped` reaches `n`, summed. */
async function shadowEvents(n: number): Promise<ShadowEvent[]> {
  const seen: ShadowEvent[] = [];
  await until(() => {
    seen.push(...r.bb.collect().filter((e): e is ShadowEvent => e.type === 'shadow'));
    return seen.reduce((a, e) => a + e.pairs + e.dropped, 0) >= n;
  }, `${n} shadow requests`);
  return seen;
}

const mirrorAll = { shadow: { [PRIMARY]: { model: CANDIDATE, share: 1 } } };

describe('shadow traffic', () => {
  it('mirrors the request to the candidate and hands the caller the primary answer unchanged', async () => {
    r = await rig(mirrorAll);
    const off = await rig();
    const plain = await off.client.chat.completions.create(ask(PRIMARY, { temperature: 0.2 }));
    await off.close();
    const res = await r.client.chat.completions.create(ask(PRIMARY, { temperature: 0.2 }));
    expect(res.model).toBe(PRIMARY);
    expect(res.choices[0]!.message.content).toBe(plain.choices[0]!.message.content);
    const sent = await until(() => r.fake.attemptsFor(CANDIDATE)[0], 'the mirror');
    expect(sent.body).toMatchObject({ model: CANDIDATE, temperature: 0.2, messages: [{ role: 'user', content: 'Say hello' }] });
    const [e] = await shadowEvents(1);
    expect(e).toMatchObject({
      type: 'shadow', key: { endpoint: 'chat', model: PRIMARY }, candidate: { provider: r.bb.keys()[0]!.provider, endpoint: 'chat', model: CANDIDATE },
      pairs: 1, dropped: 0, primary: { ok: 1, errors: {}, output_tokens: 8 }, shadow: { ok: 1, errors: {}, output_tokens: 8 },
    });
    // The candidate's cost is the pair's only: the primary key's window holds one call, no candidate key exists.
    expect(r.bb.keys().map((k) => k.model)).toEqual([PRIMARY]);
    expect(r.calls).toHaveLength(1);
  });

  it('answers the caller while the candidate still hangs, then counts the mirror as a timeout', async () => {
    r = await rig(mirrorAll, { shadowLimits: { timeoutMs: 300 } });
    r.fake.script(CANDIDATE, { kind: 'no_response' }, { persistent: true });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.choices[0]!.finish_reason).toBe('stop');
    const hung = await until(() => r.fake.attemptsFor(CANDIDATE)[0], 'the mirror');
    // The caller has its answer and the candidate has not answered.
    expect(hung.status).toBeUndefined();
    const [e] = await shadowEvents(1);
    expect(e).toMatchObject({ pairs: 1, primary: { ok: 1 }, shadow: { ok: 0, errors: { timeout: 1 } } });
    await until(() => hung.clientAborted, 'the hung mirror aborted');
    expect(r.bb.shadows.active).toBe(0);
  });

  it.each([
    ['fails', { kind: 'status', status: 500 } satisfies Fault, { server: 1 }],
    ['answers garbage', { kind: 'malformed_chunk', afterTokens: 2 } satisfies Fault, { stream_broken: 1 }],
    ['is truncated', { kind: 'finish_length' } satisfies Fault, { truncated: 1 }],
  ])('hands the caller its answer when the candidate %s, and records how the candidate did', async (_name, fault: Fault, errors) => {
    r = await rig(mirrorAll);
    r.fake.script(CANDIDATE, fault, { persistent: true });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe(PRIMARY);
    expect(res.choices[0]!.message.content).toBeTruthy();
    const [e] = await shadowEvents(1);
    expect(e!.primary).toMatchObject({ ok: 1, errors: {} });
    expect(e!.shadow).toMatchObject({ ok: 0, errors });
  });

  it('hands the caller its answer when sending to the candidate throws (nothing listens there)', async () => {
    r = await rig({ shadow: { [PRIMARY]: { model: CANDIDATE, share: 1, baseURL: 'http://127.0.0.1:9/v1', provider: 'elsewhere' } } });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe(PRIMARY);
    const [e] = await shadowEvents(1);
    expect(e).toMatchObject({ candidate: { provider: 'elsewhere', model: CANDIDATE }, shadow: { ok: 0, errors: { network: 1 } } });
  });

  it("mirrors Anthropic messages with the candidate's own key, and counts a refusal as a refusal", async () => {
    r = await rig({ shadow: { 'claude-sonnet-4-5': { model: 'claude-opus-4-1', share: 1, apiKey: 'test-key' } } });
    r.fake.script('claude-opus-4-1', { kind: 'content_filter' }, { persistent: true });
    const res = await r.anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Say hello' }] });
    expect(res.model).toBe('claude-sonnet-4-5');
    expect(res.stop_reason).toBe('end_turn');
    const sent = await until(() => r.fake.attemptsFor('claude-opus-4-1')[0], 'the mirror');
    expect(sent.status).toBe(200); // the fake answers 401 to any key but its own
    const [e] = await shadowEvents(1);
    expect(e).toMatchObject({ key: { endpoint: 'messages' }, primary: { ok: 1, refusals: 0 }, shadow: { ok: 0, refusals: 1, errors: { policy: 1 } } });
    // The candidate's key replaces the caller's: a wrong one is the candidate's failure only.
    const wrongKey = r.bb.fetch({ shadow: { 'claude-sonnet-4-5': { model: 'claude-opus-4-1', share: 1, apiKey: 'not-the-key' } } });
    const own = await wrongKey(`${r.fake.anthropicBaseUrl}/v1/messages`, {
      method: 'POST', headers: { 'x-api-key': r.fake.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Say hello' }] }),
    });
    expect(own.status).toBe(200);
    const [bad] = await shadowEvents(1);
    expect(bad).toMatchObject({ primary: { ok: 1 }, shadow: { ok: 0, errors: { auth: 1 } } });
  });

  // The fake's tool call answers `{ query, limit }` with `limit` = its tokens: 8 for the primary, 24 for the candidate here.
  const TOOL = { type: 'function' as const, function: { name: 'search_docs', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query', 'limit'] } } };
  const forced = (model: string) => ask(model, { tools: [TOOL], tool_choice: 'required' });
  const limitOf = (v: unknown) => (v as { limit?: number }).limit ?? 0;

  it("validates both sides with the operation's own validator: the candidate's refused answers are invalid_output, tokens kept", async () => {
    r = await rig({ ...mirrorAll, validate: { type: 'object', properties: { limit: { type: 'integer', maximum: 10 } }, required: ['query', 'limit'] } });
    r.fake.script(CANDIDATE, { kind: 'ok', tokens: 24 }, { persistent: true });
    for (let i = 0; i < 3; i++) expect((await r.client.chat.completions.create(forced(PRIMARY))).choices[0]!.finish_reason).toBe('tool_calls');
    const events = await shadowEvents(3);
    const sum = (side: 'primary' | 'shadow', f: (s: ShadowEvent['primary']) => number) => events.reduce((a, e) => a + f(e[side]), 0);
    expect(sum('primary', (s) => s.validation?.checked ?? 0)).toBe(3);
    expect(sum('primary', (s) => s.validation?.passed ?? 0)).toBe(3);
    expect(sum('shadow', (s) => s.validation?.checked ?? 0)).toBe(3);
    expect(sum('shadow', (s) => s.validation?.passed ?? 0)).toBe(0);
    expect(sum('shadow', (s) => s.errors.invalid_output ?? 0)).toBe(3);
    expect(sum('shadow', (s) => s.output_tokens)).toBe(3 * 24);
    // A plain text request under the same validator: streamed answers are never validated, on either side.
    const read = await readStream(await streamed(r, PRIMARY));
    expect(read.error).toBeUndefined();
    const [e] = await shadowEvents(1);
    expect(e!.primary.validation).toBeUndefined();
    expect(e!.shadow.validation).toBeUndefined();
  });

  it("hands the caller its answer when the validator throws on the candidate's answer, which counts as refused", async () => {
    r = await rig({ ...mirrorAll, validate: (v) => { if (limitOf(v) > 10) throw new Error('validator blew up'); return true; } });
    r.fake.script(CANDIDATE, { kind: 'ok', tokens: 24 }, { persistent: true });
    const res = await r.client.chat.completions.create(forced(PRIMARY));
    expect(res.model).toBe(PRIMARY);
    const call = res.choices[0]!.message.tool_calls![0] as { function: { arguments: string } };
    expect(JSON.parse(call.function.arguments)).toMatchObject({ limit: 8 });
    const [e] = await shadowEvents(1);
    expect(e).toMatchObject({ primary: { ok: 1, validation: { checked: 1, passed: 1 } }, shadow: { ok: 0, errors: { invalid_output: 1 }, validation: { checked: 1, passed: 0 } } });
  });

  it("hands the caller its answer while the validator hangs on the candidate's answer; the mirror's deadline ends it as a timeout", async () => {
    let hung = 0;
    r = await rig({ ...mirrorAll, validate: (v) => (limitOf(v) > 10 ? (hung++, new Promise<boolean>(() => undefined)) : true) }, { shadowLimits: { timeoutMs: 300 } });
    r.fake.script(CANDIDATE, { kind: 'ok', tokens: 24 }, { persistent: true });
    const res = await r.client.chat.completions.create(forced(PRIMARY));
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    await until(() => hung === 1, "the validator hanging on the candidate's answer");
    // The caller has its answer; the mirror is still held by the validator.
    expect(r.bb.shadows.active).toBe(1);
    const [e] = await shadowEvents(1);
    expect(e).toMatchObject({ pairs: 1, primary: { ok: 1, validation: { checked: 1, passed: 1 } }, shadow: { ok: 0, errors: { timeout: 1 } } });
    expect(e!.shadow.validation).toBeUndefined();
    expect(r.bb.shadows.active).toBe(0);
  });

  it('counts the primary as failed when a fallback served the caller, and the caller gets the fallback answer as without shadowing', async () => {
    r = await rig({ ...mirrorAll, fallbacks: { [PRIMARY]: [{ model: 'gpt-4o-mini' }] } });
    r.fake.script(PRIMARY, { kind: 'status', status: 503 }, { persistent: true });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe('gpt-4o-mini');
    const [e] = await shadowEvents(1);
    expect(e).toMatchObject({ pairs: 1, primary: { ok: 0, errors: { server: 1 } }, shadow: { ok: 1, errors: {} } });
  });

  it('compares streamed answers with their time to first token on both sides', async () => {
    r = await rig(mirrorAll);
    const read = await readStream(await streamed(r, PRIMARY));
    expect(read.error).toBeUndefined();
    expect(read.text.length).toBeGreaterThan(0);
    const [e] = await shadowEvents(1);
    expect(e!.primary.ttft_ms?.counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(e!.shadow.ttft_ms?.counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(e).toMatchObject({ primary: { ok: 1 }, shadow: { ok: 1 } });
  });

  it('sends no mirror while the primary breaker is open, and mirrors again once it closes', async () => {
    r = await rig(mirrorAll);
    await r.client.chat.completions.create(ask(PRIMARY));
    const key = r.bb.keys()[0]!;
    await until(() => r.fake.attemptsFor(CANDIDATE).length === 1, 'the first mirror');
    r.bb.policy(key).breaker.forceOpen();
    for (let i = 0; i < 3; i++) await expect(r.client.chat.completions.create(ask(PRIMARY))).rejects.toMatchObject({ status: 503 });
    r.bb.policy(key).breaker.forceClose();
    await r.client.chat.completions.create(ask(PRIMARY));
    await until(() => r.fake.attemptsFor(CANDIDATE).length === 2, 'the mirror after closing');
    const events = await shadowEvents(2);
    expect(events.reduce((a, e) => a + e.pairs, 0)).toBe(2);
  });

  it.each([
    ['fail-closed', { failClosed: true }],
    ['non-idempotent', { idempotent: false }],
  ])('never mirrors %s requests', async (_name, opts) => {
    r = await rig({ ...mirrorAll, ...opts });
    for (let i = 0; i < 3; i++) expect((await r.client.chat.completions.create(ask(PRIMARY))).model).toBe(PRIMARY);
    // A later mirrored wrapper on the same fake proves the mirrors would have arrived by now.
    const other = r.bb.fetch(mirrorAll);
    await other(`${r.fake.openaiBaseUrl}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${r.fake.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(ask(PRIMARY)) });
    await until(() => r.fake.attemptsFor(CANDIDATE).length === 1, 'the control mirror');
    expect(r.fake.attemptsFor(CANDIDATE)).toHaveLength(1);
  });

  it('sheds a mirror when its slots are busy instead of queueing it, and counts it as dropped', async () => {
    r = await rig(mirrorAll, { shadowLimits: { maxConcurrent: 1, timeoutMs: 300 } });
    r.fake.script(CANDIDATE, { kind: 'no_response' }, { persistent: true });
    await r.client.chat.completions.create(ask(PRIMARY));
    await until(() => r.fake.attemptsFor(CANDIDATE).length === 1, 'the first mirror');
    await r.client.chat.completions.create(ask(PRIMARY));
    const events = await shadowEvents(2);
    expect(events.reduce((a, e) => a + e.dropped, 0)).toBe(1);
    expect(events.reduce((a, e) => a + e.pairs, 0)).toBe(1);
    expect(r.fake.attemptsFor(CANDIDATE)).toHaveLength(1);
  });

  it('mirrors about the configured share, drawn from the injectable random', async () => {
    const draws = [0.01, 0.5, 0.04, 0.9];
    r = await rig({ shadow: { [PRIMARY]: { model: CANDIDATE, share: 0.05 } } }, { random: () => draws.shift() ?? 0.99 });
    for (let i = 0; i < 4; i++) await r.client.chat.completions.create(ask(PRIMARY));
    const events = await shadowEvents(2);
    expect(events.reduce((a, e) => a + e.pairs, 0)).toBe(2);
    expect(r.fake.attemptsFor(CANDIDATE)).toHaveLength(2);
  });

  it('measures the successor the fake was set to be: longer, pricier, truncated 1 in 4', async () => {
    r = await rig({ shadow: { [PRIMARY]: { model: SUCCESSOR.model, share: 1 } } }, { prices: { [SUCCESSOR.model]: SUCCESSOR.price }, shadowLimits: { maxConcurrent: 64 } });
    scriptSuccessor(r.fake);
    for (let i = 0; i < 8; i++) await r.client.chat.completions.create(ask(PRIMARY));
    const events = await shadowEvents(8);
    const truncated = events.reduce((a, e) => a + (e.shadow.errors.truncated ?? 0), 0);
    const tokens = events.reduce((a, e) => a + e.shadow.output_tokens, 0);
    expect(truncated).toBe(2);
    expect(tokens).toBe(8 * SUCCESSOR.tokens);
    expect(events.reduce((a, e) => a + e.primary.output_tokens, 0)).toBe(8 * 8);
    // No candidate answer came sooner than the latency the fake holds it for.
    const early = events.reduce((a, e) => a + e.shadow.latency_ms.counts.slice(0, e.shadow.latency_ms.bounds.findIndex((b) => b >= SUCCESSOR.latencyMs)).reduce((x, y) => x + y, 0), 0);
    expect(early).toBe(0);
  });
});

describe('shadow options and properties', () => {
  it('refuses a bad shadow option naming its field', () => {
    const bb = createBreakerbox();
    expect(() => bb.fetch({ shadow: { [PRIMARY]: { model: CANDIDATE, share: 2 } } })).toThrow(expect.objectContaining({ field: 'shadow["gpt-4o"].share' }));
    expect(() => bb.fetch({ shadow: { [PRIMARY]: { share: 0.1 } as never } })).toThrow(expect.objectContaining({ field: 'shadow["gpt-4o"].model' }));
    expect(() => bb.fetch({ shadow: { [PRIMARY]: { model: CANDIDATE, share: 0.1, baseURL: 'ftp://x' } } })).toThrow(expect.objectContaining({ field: 'shadow["gpt-4o"].baseURL' }));
    expect(() => createBreakerbox({ shadowLimits: { maxConcurrent: 0 } })).toThrow(expect.objectContaining({ field: 'shadowLimits.maxConcurrent' }));
  });

  it("runs each mirror's deadline on a background timer, so a mirror never keeps the process alive", () => {
    const timers: Array<boolean | undefined> = [];
    const clock = { now: () => 0, setTimeout: (_fn: () => void, _ms: number, background?: boolean) => (timers.push(background), timers.length), clearTimeout: () => undefined };
    const runner = new ShadowRunner({ clock, random: () => 0, latencyBounds: [100], policy: () => ({ breaker: { state: { name: 'closed' } }, bulkhead: { queued: 0 } }) });
    const key = { provider: 'p', endpoint: 'chat', model: 'a' };
    const m = runner.begin({ key, candidate: { ...key, model: 'b' }, share: 1, failClosed: false, idempotent: true, asksJson: false }, () => new Promise(() => undefined));
    expect(m).toBeDefined();
    expect(timers).toEqual([true]);
    runner.close();
    expect(m!.signal.aborted).toBe(true);
  });

  it('checks JSON validity only when the request asked for JSON or the primary answered JSON', () => {
    const chat = (content: string) => ({ choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' }] });
    expect(bodyProperties('chat', chat('{"a":1}'))).toEqual({ refusal: false, json: true });
    expect(bodyProperties('chat', chat('{"a":'))).toEqual({ refusal: false, json: false });
    expect(bodyProperties('chat', { choices: [{ message: { content: null, refusal: 'I cannot' }, finish_reason: 'stop' }] })).toEqual({ refusal: true });
    const stats = new ShadowStats({ provider: 'p', endpoint: 'chat', model: 'a' }, { provider: 'p', endpoint: 'chat', model: 'b' }, [100], 0);
    const side = (json: boolean) => ({ ok: true, refusal: false, json, latencyMs: 10, outputTokens: 1, costUsd: 0 });
    stats.record(side(false), side(true), false); // primary text, not asked: not checked
    stats.record(side(true), side(false), false); // primary answered JSON: checked
    stats.record(side(false), side(true), true); // asked for JSON: checked
    const e = stats.drain(1)!;
    expect(e.primary.json).toEqual({ checked: 2, valid: 1 });
    expect(e.shadow.json).toEqual({ checked: 2, valid: 1 });
    expect(e.primary).not.toHaveProperty('validation');
  });
});
