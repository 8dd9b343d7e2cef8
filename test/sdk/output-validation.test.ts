/**
 * Structured-output validation (issue 26): an operation or a fetch wrapper declares how an
 * answer is validated — a JSON Schema, a validator function or a Standard Schema — and an
 * answer that fails is an `invalid_output` failure that fails over to the next level and is
 * never returned as a success, least of all by a fail-closed write path.
 */
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { Type } from '@sinclair/typebox';
import { BreakerboxError, createBreakerbox, type BreakerKey, type StandardSchemaV1, type WindowEvent } from '../../sdk/index.ts';
import { jsonSchemaProblem } from '../../sdk/validation/json-schema.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';

const PRIMARY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const L2: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4-5' };

const Ticket = Type.Object({ title: Type.String({ minLength: 1 }), priority: Type.Union([Type.Literal('low'), Type.Literal('high')]) }, { additionalProperties: false });

/** A Standard Schema v1 written by hand, as zod/valibot/arktype expose one (async, like some of them). */
const ticketStandard: StandardSchemaV1<unknown, { title: string }> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: async (v) =>
      typeof v === 'object' && v !== null && typeof (v as { title?: unknown }).title === 'string'
        ? { value: v as { title: string } }
        : { issues: [{ message: 'Required', path: [{ key: 'title' }] }] },
  },
};

function instance() {
  const clock = new ManualClock();
  // The options accept exactly the Clock interface, so the test clock is handed over through it.
  const asClock = { now: () => clock.now(), setTimeout: (fn: () => void, ms: number) => clock.setTimeout(fn, ms), clearTimeout: (h: unknown) => clock.clearTimeout(h) };
  const bb = createBreakerbox({ clock: asClock, random: () => 0.5 });
  bb.onWarning(() => undefined);
  return { bb, clock };
}

const windowOf = (events: ReturnType<ReturnType<typeof instance>['bb']['collect']>, key: BreakerKey) =>
  events.find((e): e is WindowEvent => e.type === 'window' && e.key.model === key.model);

describe('the JSON Schema checker', () => {
  it('names the first problem with its path, and accepts what the schema allows', () => {
    expect(jsonSchemaProblem(Ticket, { title: 'Printer on fire', priority: 'high' })).toBeUndefined();
    expect(jsonSchemaProblem(Ticket, { title: 'x' })).toBe('$: missing required property "priority"');
    expect(jsonSchemaProblem(Ticket, { title: 'x', priority: 'high', extra: 1 })).toBe('$: unexpected property "extra"');
    expect(jsonSchemaProblem(Ticket, { title: 'x', priority: 'urgent' })).toBe('$.priority: matches none of anyOf');
    expect(jsonSchemaProblem(Ticket, { title: '', priority: 'low' })).toBe('$.title: shorter than 1');
    const withRef = { $defs: { n: { type: 'integer', minimum: 1 } }, type: 'array', items: { $ref: '#/$defs/n' } };
    expect(jsonSchemaProblem(withRef, [1, 2])).toBeUndefined();
    expect(jsonSchemaProblem(withRef, [1, 2.5])).toBe('$[1]: must be integer (got number)');
    expect(jsonSchemaProblem({ type: 'object' }, 'text')).toBe('$: must be object (got string)');
  });
});

describe('operation validation', () => {
  it('fails an answer that breaks the JSON Schema over to the L2 level, and counts it as invalid_output on the primary', async () => {
    const { bb } = instance();
    const op = bb.operation<undefined, unknown>({
      name: 'triage',
      validate: Ticket,
      levels: [
        { key: PRIMARY, run: async () => ({ title: 'Printer on fire', prio: 'high' }) },
        { key: L2, level: 2, run: async () => ({ title: 'Printer on fire', priority: 'high' }) },
      ],
    });
    const r = await op.run(undefined);
    expect(r.level).toBe(2);
    expect(r.value).toEqual({ title: 'Printer on fire', priority: 'high' });
    expect(r.attempts.map((a) => [a.level, a.ok, a.errorClass])).toEqual([[0, false, 'invalid_output'], [2, true, undefined]]);
    const w = windowOf(bb.collect(), PRIMARY)!;
    // Not retried on the same key, and not held against the provider.
    expect(w.calls).toBe(1);
    expect(w.errors).toEqual({ invalid_output: 1 });
    expect(bb.policy(PRIMARY).breaker.state.name).toBe('closed');
  });

  it('takes a validator function: false or a reason refuses, a throw refuses with its message', async () => {
    const { bb } = instance();
    const answers: unknown[] = ['no', 'maybe', 'yes'];
    const op = bb.operation<undefined, string>({
      name: 'yes-only',
      validate: (v) => (v === 'yes' ? true : v === 'maybe' ? 'undecided answer' : false),
      levels: [PRIMARY, L2, { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1' }].map((key, i) => ({ key, level: Math.min(i * 2, 3) as 0 | 2 | 3, run: async () => answers[i] as string })),
    });
    expect((await op.run(undefined)).value).toBe('yes');
    const throwing = bb.operation<undefined, string>({ name: 'throws', validate: () => { throw new Error('schema compile failed'); }, levels: [{ key: PRIMARY, run: async () => 'x' }] });
    await expect(throwing.run(undefined)).rejects.toMatchObject({ code: 'BB_ERR_SDK_INVALID_OUTPUT', message: expect.stringContaining('schema compile failed') });
  });

  it('takes a Standard Schema (zod, valibot, arktype style), async validate included', async () => {
    const { bb } = instance();
    const op = bb.operation({
      name: 'standard',
      validate: ticketStandard,
      levels: [{ key: PRIMARY, run: async () => ({ name: 'wrong field' }) as unknown }, { key: L2, level: 2, run: async () => ({ title: 'right' }) as unknown }],
    });
    const r = await op.run(undefined);
    expect(r.value).toEqual({ title: 'right' });
    const only = bb.operation({ name: 'standard-only', validate: ticketStandard, levels: [{ key: PRIMARY, run: async () => ({ name: 'wrong' }) as unknown }] });
    await expect(only.run(undefined)).rejects.toMatchObject({ code: 'BB_ERR_SDK_INVALID_OUTPUT', errorClass: 'invalid_output', message: expect.stringContaining('title: Required') });
  });

  it('never returns an invalid answer to a fail-closed write path, even with a valid fallback', async () => {
    const { bb } = instance();
    let fallbackRuns = 0;
    const op = bb.operation({
      name: 'write',
      failClosed: true,
      validate: Ticket,
      levels: [{ key: PRIMARY, run: async () => ({ title: 'x', priority: 'urgent' }) }, { key: L2, run: async () => (fallbackRuns++, { title: 'x', priority: 'low' }) }],
    });
    const err = await op.run(undefined).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(BreakerboxError);
    expect(err).toMatchObject({ code: 'BB_ERR_SDK_INVALID_OUTPUT', errorClass: 'invalid_output' });
    expect(fallbackRuns).toBe(0);
  });

  it('does not fail over an invalid answer when fallbackOn leaves invalid_output out', async () => {
    const { bb } = instance();
    let fallbackRuns = 0;
    const op = bb.operation({ name: 'strict', fallbackOn: [], validate: Ticket, levels: [{ key: PRIMARY, run: async () => ({}) }, { key: L2, run: async () => (fallbackRuns++, { title: 'x', priority: 'low' }) }] });
    await expect(op.run(undefined)).rejects.toMatchObject({ errorClass: 'invalid_output', cause: expect.objectContaining({ code: 'BB_ERR_SDK_INVALID_OUTPUT' }) });
    expect(fallbackRuns).toBe(0);
  });

  it('refuses a validate that is none of the three at construction, naming the field', () => {
    const { bb } = instance();
    expect(() => bb.operation({ name: 'x', validate: 42 as never, levels: [{ key: PRIMARY, run: async () => 1 }] })).toThrow(expect.objectContaining({ code: 'BB_ERR_SDK_INVALID_OPTIONS', field: 'validate' }));
    expect(() => bb.fetch({ validate: 'schema' as never })).toThrow(expect.objectContaining({ field: 'validate' }));
  });
});

describe('fetch validation through the official client', () => {
  let fake: FakeProvider | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  const TOOL = {
    type: 'function' as const,
    function: { name: 'search_docs', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 5 } }, required: ['query', 'limit'], additionalProperties: false } },
  };
  const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'find it' }], tools: [TOOL], tool_choice: 'required' as const });

  async function client(options: Parameters<ReturnType<typeof createBreakerbox>['fetch']>[0]) {
    fake = await startFakeProvider({ tokens: 8 });
    const bb = createBreakerbox({ defaults: { retry: { baseDelayMs: 10, maxDelayMs: 100 } } });
    bb.onWarning(() => undefined);
    return { bb, openai: new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch(options) }) };
  }

  it("validates tool-call arguments against the request's own schema and fails over an answer that breaks it", async () => {
    const { openai } = await client({ validate: 'request', fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    // The primary's call asks for 3 results: below the schema's minimum of 5.
    fake!.script('gpt-4o', [{ kind: 'ok', tokens: 3 }]);
    const { data, response } = await openai.chat.completions.create(ask('gpt-4o')).withResponse();
    expect(response.headers.get('x-breakerbox-level')).toBe('2');
    expect(JSON.parse(data.choices[0]!.message.tool_calls![0]!.type === 'function' ? (data.choices[0]!.message.tool_calls![0] as { function: { arguments: string } }).function.arguments : '{}')).toMatchObject({ limit: 8 });
    expect(fake!.attempts.map((a) => a.model)).toEqual(['gpt-4o', 'gpt-4o-mini']);
  });

  it('hands a fail-closed client a 502 BB_ERR_SDK_INVALID_OUTPUT, never the invalid answer', async () => {
    const { openai } = await client({ validate: TOOL.function.parameters, failClosed: true, fallbacks: { 'gpt-4o': [{ model: 'gpt-4o-mini' }] } });
    fake!.script('gpt-4o', [{ kind: 'ok', tokens: 3 }]);
    const err = await openai.chat.completions.create(ask('gpt-4o')).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ status: 502, error: expect.objectContaining({ code: 'BB_ERR_SDK_INVALID_OUTPUT' }) });
    expect(fake!.attempts.map((a) => a.model)).toEqual(['gpt-4o']);
  });
});
