/**
 * Failure drills in the SDK (issue 26), end to end: a real local collector sends drill
 * commands on the fleet feed, the SDK injects each fault at its fetch layer — before the
 * fake provider, which sees no request for it — and the official `openai` and
 * `@anthropic-ai/sdk` clients see the fault exactly as the provider would send it. Drill
 * traffic goes to batches of its own with `drill_id`; drills are ignored when not enabled
 * or for another service, and end after their `step_ms`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { Value } from '@sinclair/typebox/value';
import { BatchEnvelopeSchema, type TransitionEvent, type WindowEvent } from '@breakerbox/protocol';
import { drillCollector, drillRig, until, type DrillRig } from './drill-rig.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const rigs: DrillRig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.close();
});
async function started(...args: Parameters<typeof drillRig>): Promise<DrillRig> {
  const r = await drillRig(...args);
  rigs.push(r);
  return r;
}

const ask = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user' as const, content: 'Say hello' }], ...extra });
const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
const windows = (r: DrillRig, drill: boolean) => r.collector.batches.filter((b) => (b.drill_id !== undefined) === drill).flatMap((b) => b.events).filter((e): e is WindowEvent => e.type === 'window');

describe('drill faults through the official clients', () => {
  it('rate_limit: a 429 with retry-after in the provider body shape, the provider untouched', async () => {
    const r = await started();
    await r.drill({ kinds: ['rate_limit'] });
    const err = await errorOf(r.openai.chat.completions.create(ask('gpt-4o')));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('1');
    const aerr = await errorOf(r.anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }));
    expect(aerr).toBeInstanceOf(Anthropic.RateLimitError);
    expect((aerr as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(r.fake.attempts).toHaveLength(0);
  });

  it('primary_down: a refused connection fails over to the fallback, which the provider alone sees', async () => {
    const r = await started({ fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    const calls: Array<{ drillId?: string; attempts: number; level: number }> = [];
    r.bb.onCall((e) => calls.push(e));
    await r.drill({ id: 'down-1', kinds: ['primary_down'] });
    const { data, response } = await r.openai.chat.completions.create(ask('gpt-4o')).withResponse();
    expect(data.choices[0]!.message.content).toBeTruthy();
    expect(response.headers.get('x-breakerbox-level')).toBe('2');
    // The host's own call log can tell drill traffic apart.
    await until(() => calls.length === 1);
    expect(calls[0]).toMatchObject({ drillId: 'down-1', attempts: 2, level: 2 });
    expect(r.fake.attempts.map((a) => a.model)).toEqual(['gpt-4o-mini']);
    // Without a fallback the client sees the connection error undici would have thrown.
    const err = await errorOf(r.openai.chat.completions.create(ask('gpt-4.1')));
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it("slow_first_byte: the first byte is held past the key's first-byte limit, so the attempt times out before reaching the provider", async () => {
    const r = await started({ fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } }, { defaults: { timeouts: { firstByteMs: 100 } } });
    await r.drill({ kinds: ['slow_first_byte'] });
    const { response } = await r.openai.chat.completions.create(ask('gpt-4o')).withResponse();
    expect(response.headers.get('x-breakerbox-level')).toBe('2');
    expect(r.fake.attempts.map((a) => a.model)).toEqual(['gpt-4o-mini']);
    await r.bb.flush(2_000);
    expect(windows(r, true).find((w) => w.key.model === 'gpt-4o')?.errors).toEqual({ timeout: 1 });
  });

  it('truncated: chat finish_reason length, Responses incomplete for max_output_tokens, Anthropic max_tokens — JSON and streamed', async () => {
    const r = await started();
    await r.drill({ kinds: ['truncated'] });
    const chat = await r.openai.chat.completions.create(ask('gpt-4o'));
    expect(chat.choices[0]!.finish_reason).toBe('length');
    const resp = await r.openai.responses.create({ model: 'gpt-4.1', input: 'hi' });
    expect(resp.status).toBe('incomplete');
    expect(resp.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(resp.output_text).toContain('cut short');
    const msg = await r.anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(msg.stop_reason).toBe('max_tokens');
    let finish: string | null | undefined;
    for await (const c of await r.openai.chat.completions.create({ ...ask('gpt-4o'), stream: true })) finish = c.choices[0]?.finish_reason ?? finish;
    expect(finish).toBe('length');
    const stream = r.anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect((await stream.finalMessage()).stop_reason).toBe('max_tokens');
    let incomplete: unknown;
    for await (const e of await r.openai.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true })) if (e.type === 'response.incomplete') incomplete = e.response.incomplete_details;
    expect(incomplete).toEqual({ reason: 'max_output_tokens' });
    expect(r.fake.attempts).toHaveLength(0);
    // Counted as truncated, not as a success.
    await r.bb.flush(2_000);
    const w = windows(r, true).filter((x) => x.key.model === 'gpt-4o');
    expect(w.reduce((s, x) => s + (x.errors.truncated ?? 0), 0)).toBe(2);
    expect(w.reduce((s, x) => s + x.ok, 0)).toBe(0);
  });

  it('field_renamed: one field of a structured output renamed; validation catches it and the fallback answers', async () => {
    const TOOL = { type: 'function' as const, function: { name: 'search_docs', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query', 'limit'], additionalProperties: false } } };
    const forced = (model: string) => ask(model, { tools: [TOOL], tool_choice: 'required' });
    const args = (c: OpenAI.Chat.Completions.ChatCompletion) => JSON.parse((c.choices[0]!.message.tool_calls![0] as { function: { arguments: string } }).function.arguments) as Record<string, unknown>;
    const r = await started({ validate: 'request', fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    await r.drill({ kinds: ['field_renamed'] });
    const { data, response } = await r.openai.chat.completions.create(forced('gpt-4o')).withResponse();
    expect(response.headers.get('x-breakerbox-level')).toBe('2');
    expect(Object.keys(args(data)).sort()).toEqual(['limit', 'query']);
    // The primary's answer (the one request the call makes anyway) came back renamed and failed validation.
    expect(r.fake.attempts.map((a) => a.model)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    await r.bb.flush(2_000);
    expect(windows(r, true).find((w) => w.key.model === 'gpt-4o')?.errors).toEqual({ invalid_output: 1 });

    // A service with no validation hands the renamed field to its code.
    const bare = await started();
    await bare.drill({ kinds: ['field_renamed'] });
    expect(Object.keys(args(await bare.openai.chat.completions.create(forced('gpt-4o')))).sort()).toEqual(['limit', 'query_renamed']);
    const resp = await bare.openai.responses.create({ model: 'gpt-4.1', input: 'find it', tools: [{ type: 'function', name: 'search_docs', parameters: TOOL.function.parameters, strict: true }], tool_choice: 'required' });
    const call = resp.output.find((o) => o.type === 'function_call') as { arguments: string } | undefined;
    expect(Object.keys(JSON.parse(call!.arguments)).sort()).toEqual(['limit', 'query_renamed']);
    const msg = await bare.anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'find it' }], tools: [{ name: 'search_docs', input_schema: { type: 'object', properties: TOOL.function.parameters.properties } }], tool_choice: { type: 'any' } });
    const use = msg.content.find((b) => b.type === 'tool_use') as { input: Record<string, unknown> } | undefined;
    expect(Object.keys(use!.input).sort()).toEqual(['limit', 'query_renamed']);
  });

  it('auth_revoked: a 401 in the provider body shape, one attempt, no retry', async () => {
    const r = await started({}, { defaults: { retry: { maxAttempts: 3, baseDelayMs: 1 } } });
    await r.drill({ kinds: ['auth_revoked'] });
    const err = await errorOf(r.openai.chat.completions.create(ask('gpt-4o')));
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err).toMatchObject({ status: 401, code: 'invalid_api_key' });
    const aerr = await errorOf(r.anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }));
    expect(aerr).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(r.fake.attempts).toHaveLength(0);
    await r.bb.flush(2_000);
    expect(windows(r, true).find((w) => w.key.model === 'gpt-4o')).toMatchObject({ calls: 1, retries: 0, errors: { auth: 1 } });
  });
});

describe('drill addressing and lifetime', () => {
  it('subscribes with ?service= and opens the feed for drills alone, applying no fleet decision', async () => {
    const r = await started();
    expect(r.collector.feeds[0]!.searchParams.get('service')).toBe('drafts');
    expect(r.collector.feeds[0]!.searchParams.get('keys')).toBeNull();
    expect(r.bb.drillState()).toEqual({ state: 'idle' });
  });

  it('ignores drills for another service, and every drill when drills are not enabled', async () => {
    const r = await started();
    expect(await r.drill({ kinds: ['auth_revoked'], service: 'billing' })).toMatchObject({ outcome: 'ignored', why: 'other_service' });
    expect((await r.openai.chat.completions.create(ask('gpt-4o'))).choices[0]!.finish_reason).toBe('stop');

    // Fleet on, drills off: the same feed carries the drill, and nothing happens.
    const off = await started({}, { drills: { enabled: false }, fleet: true });
    await off.openai.chat.completions.create(ask('gpt-4o'));
    await until(() => off.collector.feeds.length > 0);
    // It does not name its service: the collector counts only drill-running feeds as a service's subscribers.
    expect(off.collector.feeds[0]!.searchParams.get('service')).toBeNull();
    off.collector.send({ kinds: ['auth_revoked'] });
    // A decision sent after it arrives after it: once that one is handled, so was the drill.
    off.collector.sendEvent('decision', { id: 'd1', kind: 'outage', key: { provider: 'x', endpoint: 'chat', model: 'unused' }, ttl_ms: 60_000, reason: 'provider_outage', issued_at: 1 });
    await until(() => off.bb.fleetStats()!.ignored.unknown_key === 1);
    expect(off.outcomes).toEqual([]);
    expect(off.bb.drillState()).toEqual({ state: 'off' });
    expect((await off.openai.chat.completions.create(ask('gpt-4o'))).choices[0]!.finish_reason).toBe('stop');
    expect(off.fake.attempts).toHaveLength(2);
  });

  it('refuses drills enabled without a collector, naming the field', async () => {
    const { createBreakerbox } = await import('../../sdk/index.ts');
    expect(() => createBreakerbox({ drills: { enabled: true } })).toThrow(expect.objectContaining({ code: 'BB_ERR_SDK_INVALID_OPTIONS', field: 'drills.enabled' }));
    expect(() => createBreakerbox({ drills: { enabled: 'yes' as never } })).toThrow(expect.objectContaining({ field: 'drills.enabled' }));
  });

  it('runs its kinds one after another for step_ms each, then ends by itself; step_ms 0 stops a drill', async () => {
    const r = await started();
    const s = await r.drill({ id: 'q1', kinds: ['truncated', 'auth_revoked'], step_ms: 400 });
    expect(s).toMatchObject({ outcome: 'started' });
    expect((await r.openai.chat.completions.create(ask('gpt-4o'))).choices[0]!.finish_reason).toBe('length');
    await until(() => r.bb.drillState().state === 'running' && (r.bb.drillState() as { kind: string }).kind === 'auth_revoked');
    expect(await errorOf(r.openai.chat.completions.create(ask('gpt-4o')))).toBeInstanceOf(OpenAI.AuthenticationError);
    await until(() => r.outcomes.some((o) => o.outcome === 'ended'));
    expect(r.outcomes.at(-1)).toEqual({ outcome: 'ended', id: 'q1', why: 'finished' });
    expect(r.bb.drillState()).toEqual({ state: 'idle' });
    expect((await r.openai.chat.completions.create(ask('gpt-4o'))).choices[0]!.finish_reason).toBe('stop');
    // The same id replayed (a reconnecting feed) does not run again; a stop ends a running drill.
    expect(await r.drill({ id: 'q1', kinds: ['truncated'] })).toMatchObject({ outcome: 'ignored', why: 'duplicate' });
    await r.drill({ id: 'q2', kinds: ['truncated'], step_ms: 3_600_000 });
    expect(await r.drill({ id: 'q2', kinds: ['truncated'], step_ms: 0 })).toEqual({ outcome: 'ended', id: 'q2', why: 'stopped' });
    expect((await r.openai.chat.completions.create(ask('gpt-4o'))).choices[0]!.finish_reason).toBe('stop');
  });

  it('drills only the named keys: a call whose chain starts elsewhere is real traffic', async () => {
    const r = await started();
    await r.openai.chat.completions.create(ask('gpt-4.1'));
    // The key as the fetch wrapper names it (provider from the fake's host).
    const key = { ...r.bb.keys()[0]!, model: 'gpt-4o' };
    await r.drill({ kinds: ['auth_revoked'], keys: [key] });
    expect(await errorOf(r.openai.chat.completions.create(ask('gpt-4o')))).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((await r.openai.chat.completions.create(ask('gpt-4.1'))).choices[0]!.finish_reason).toBe('stop');
  });
});

describe('drill telemetry', () => {
  it("sends drill traffic — every attempt of the call, fallback included, and the drilled key's transitions — in batches of its own with drill_id; real traffic keeps its batches", async () => {
    const r = await started(
      { fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } },
      { defaults: { breaker: { consecutiveFailures: 2 } } },
    );
    await r.openai.chat.completions.create(ask('gpt-4.1')); // real traffic before the drill
    // Only gpt-4o's chain is drilled (without keys, every chain's primary would be).
    await r.drill({ id: 'drill-42', kinds: ['primary_down'], keys: [{ ...r.bb.keys()[0]!, model: 'gpt-4o' }] });
    for (let i = 0; i < 4; i++) await r.openai.chat.completions.create(ask('gpt-4o'));
    await r.openai.chat.completions.create(ask('gpt-4.1', { messages: [{ role: 'user', content: 'again' }] })); // real traffic during the drill, another chain
    await r.bb.flush(2_000);
    // Every batch, drill ones included, is a valid protocol v1 envelope.
    for (const b of r.collector.batches) expect(Value.Check(BatchEnvelopeSchema, b), JSON.stringify(b).slice(0, 200)).toBe(true);
    const drillBatches = r.collector.batches.filter((b) => b.drill_id !== undefined);
    expect(drillBatches.length).toBeGreaterThan(0);
    expect(new Set(drillBatches.map((b) => b.drill_id))).toEqual(new Set(['drill-42']));
    expect(drillBatches.every((b) => b.batch_id.startsWith('drill-'))).toBe(true);
    const drillEvents = drillBatches.flatMap((b) => b.events);
    const byModel = (m: string) => windows(r, true).filter((w) => w.key.model === m);
    // The first (cold) failure is not held against the key; two more trip it; the fourth call finds it open.
    expect(byModel('gpt-4o').reduce((s, w) => s + (w.errors.network ?? 0), 0)).toBe(3);
    expect(byModel('gpt-4o').reduce((s, w) => s + w.short_circuited, 0)).toBe(1);
    expect(byModel('gpt-4o-mini').reduce((s, w) => s + w.ok, 0)).toBe(4);
    expect(byModel('gpt-4.1')).toEqual([]);
    expect(drillEvents).toContainEqual(expect.objectContaining({ type: 'tasks', completed: 4, levels: { '2': 4 } }));
    expect(drillEvents.filter((e): e is TransitionEvent => e.type === 'transition')).toContainEqual(expect.objectContaining({ to: 'open', key: expect.objectContaining({ model: 'gpt-4o' }) }));
    // Real batches: the gpt-4.1 calls, no drill window, no drill transition.
    const real = windows(r, false);
    expect(real.reduce((s, w) => s + (w.key.model === 'gpt-4.1' ? w.ok : 0), 0)).toBe(2);
    expect(real.filter((w) => w.key.model === 'gpt-4o' || w.key.model === 'gpt-4o-mini')).toEqual([]);
    const realEvents = r.collector.batches.filter((b) => b.drill_id === undefined).flatMap((b) => b.events);
    expect(realEvents.filter((e) => e.type === 'transition' && (e as TransitionEvent).to === 'open')).toEqual([]);
  });
});

describe('the host', () => {
  it('is never kept alive by drills: an enabled instance with its feed open exits when its work is done', async () => {
    const c = await drillCollector();
    try {
      const script = `
        import { createBreakerbox } from '@breakerbox/sdk';
        const bb = createBreakerbox({ telemetry: { url: '${c.url}', service: 'drafts', requestTimeoutMs: 60000 }, drills: { enabled: true } });
        bb.onDrill((o) => console.log('drill ' + o.outcome));
        setTimeout(() => console.log('work done, drills ' + bb.drillState().state), 300);
      `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      // A week-long drill arrives on the open feed; its timer must not hold the process either.
      await until(() => c.feeds.length > 0);
      c.send({ id: 'long', kinds: ['rate_limit'], step_ms: 3_600_000 });
      const code = await new Promise<number | string>((resolve) => {
        const guard = setTimeout(() => (child.kill('SIGKILL'), resolve('still alive after 45 s')), 45_000);
        child.once('exit', (x) => (clearTimeout(guard), resolve(x ?? -1)));
      });
      expect(code).toBe(0);
      expect(out).toContain('drill started');
      expect(out).toContain('work done, drills running');
    } finally {
      await c.close();
    }
  }, 60_000);
});
