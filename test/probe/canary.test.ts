/**
 * Answer canaries (issue 39) through the real prober and undici against the fake provider,
 * in each wire format that judges answers (OpenAI chat, Azure chat, Anthropic Messages,
 * Gemini): the canary makes the request near-deterministic and asks for its structured
 * answer or tool call; a right answer is `ok`; a wrong word, broken JSON, a schema mismatch
 * or a wrong tool call is `wrong_answer` with the answer's first characters, redacted; the
 * served model version rides on the event; config mistakes name the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_EXCERPT_CHARS, ProbeSchema } from '@breakerbox/protocol';
import { Value } from '@sinclair/typebox/value';
import { validateConfig } from '../../probe/config-validate.ts';
import { buildPlan, formatPlan } from '../../probe/plan.ts';
import { startFakeProvider, type FakeProvider, type Fault } from '../support/fake-provider.ts';
import { API_KEY, configOf, rawTarget } from './helpers.ts';
import { probeOnce } from './probe-once.ts';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
});
afterAll(async () => {
  await fake.close();
});

type Wire = 'openai-chat' | 'azure-openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';
const WIRES: Wire[] = ['openai-chat', 'azure-openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'];
let seq = 0;

function baseOf(w: Wire): string {
  if (w === 'anthropic-messages') return fake.anthropicBaseUrl;
  if (w === 'gemini') return fake.geminiBaseUrl;
  if (w === 'azure-openai-chat') return fake.azureEndpoint;
  return fake.openaiBaseUrl;
}

const SUM_SCHEMA = { type: 'object', properties: { sum: { type: 'integer' } }, required: ['sum'], additionalProperties: false };
const TOOL = { name: 'record_city', arguments: { city: 'Paris' } };

/** Probes a fresh model of wire `w` once with `canary`, the fake answering under `fault`. */
async function probe(w: Wire, canary: Record<string, unknown>, fault: Fault, over: Record<string, unknown> = {}) {
  const model = `canary-${w}-${++seq}`;
  fake.script(model, fault);
  const key = { provider: w === 'gemini' ? 'google' : w === 'anthropic-messages' ? 'anthropic' : 'openai', endpoint: 'chat', model };
  const { event, lines } = await probeOnce(baseOf(w), w, model, {}, { over: { key, canary, ...over } });
  const attempt = fake.attemptsFor(model).at(-1)!;
  expect(Value.Check(ProbeSchema, event)).toBe(true);
  return { event, body: attempt.body as Record<string, unknown>, lines };
}

describe.each(WIRES)('answer canaries on %s', (w) => {
  it('a right word is ok, sent at temperature 0 (with a seed where the API takes one)', async () => {
    const { event, body } = await probe(w, { word: 'OK' }, { kind: 'ok', text: 'OK.' });
    expect(event.outcome).toBe('ok');
    expect(event).not.toHaveProperty('answer_excerpt');
    if (w === 'gemini') expect(body.generationConfig).toMatchObject({ temperature: 0, seed: 0 });
    else expect(body).toMatchObject({ temperature: 0 });
    if (w === 'openai-chat' || w === 'azure-openai-chat') expect(body.seed).toBe(0);
    if (w === 'anthropic-messages' || w === 'openai-responses') expect(body).not.toHaveProperty('seed');
  });

  it('a wrong word is wrong_answer — not an error — with the answer as evidence', async () => {
    const { event, lines } = await probe(w, { word: 'OK' }, { kind: 'ok', text: 'Banana' });
    expect(event.outcome).toBe('wrong_answer');
    expect(event).not.toHaveProperty('error_class');
    expect(event.status).toBe(200);
    expect(event.answer_excerpt).toBe('Banana');
    expect(event.message).toContain('expected the word "OK"');
    expect(lines.join('\n')).toContain('probe answered wrongly');
  });

  it('a case-folded word accepts another case; an exact one does not', async () => {
    expect((await probe(w, { word: 'paris', case_fold: true }, { kind: 'ok', text: 'PARIS' })).event.outcome).toBe('ok');
    expect((await probe(w, { word: 'paris' }, { kind: 'ok', text: 'PARIS' })).event.outcome).toBe('wrong_answer');
  });

  it('a regex canary passes a matching answer and fails another', async () => {
    expect((await probe(w, { regex: '^\\s*42\\s*$' }, { kind: 'ok', text: ' 42 ' })).event.outcome).toBe('ok');
    const { event } = await probe(w, { regex: '^\\s*42\\s*$' }, { kind: 'ok', text: '41' });
    expect(event).toMatchObject({ outcome: 'wrong_answer', answer_excerpt: '41' });
  });

  it('a JSON-schema canary asks for the schema; right JSON is ok, broken JSON and a schema mismatch are wrong_answer', async () => {
    const canary = { json_schema: SUM_SCHEMA };
    const right = await probe(w, canary, { kind: 'ok', text: '{"sum": 4}' });
    expect(right.event.outcome).toBe('ok');
    if (w === 'gemini') expect(right.body.generationConfig).toMatchObject({ responseMimeType: 'application/json', responseJsonSchema: SUM_SCHEMA });
    else if (w === 'anthropic-messages') expect(right.body.output_config).toEqual({ format: { type: 'json_schema', schema: SUM_SCHEMA } });
    else if (w === 'openai-responses') expect(right.body.text).toEqual({ format: { type: 'json_schema', name: 'canary', schema: SUM_SCHEMA, strict: false } });
    else expect(right.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'canary', schema: SUM_SCHEMA, strict: false } });

    const broken = await probe(w, canary, { kind: 'ok', text: '{"sum": 4' });
    expect(broken.event).toMatchObject({ outcome: 'wrong_answer', answer_excerpt: '{"sum": 4' });
    expect(broken.event.message).toContain('not JSON');

    const mismatch = await probe(w, canary, { kind: 'ok', text: '{"sum": "four"}' });
    expect(mismatch.event).toMatchObject({ outcome: 'wrong_answer', answer_excerpt: '{"sum": "four"}' });
    expect(mismatch.event.message).toContain('/sum');
  });

  it('a tool-call canary forces its tool; the right call is ok, other arguments or another tool are wrong_answer', async () => {
    const canary = { tool_call: TOOL };
    const right = await probe(w, canary, { kind: 'ok', output: 'tool_call', toolArgs: '{"city":"Paris"}' });
    expect(right.event.outcome).toBe('ok');
    if (w === 'gemini') {
      expect(right.body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['record_city'] } });
    } else if (w === 'anthropic-messages') {
      expect(right.body.tool_choice).toEqual({ type: 'tool', name: 'record_city' });
      expect(right.body.tools).toMatchObject([{ name: 'record_city', input_schema: { type: 'object', required: ['city'] } }]);
    } else if (w === 'openai-responses') {
      expect(right.body.tool_choice).toEqual({ type: 'function', name: 'record_city' });
    } else expect(right.body.tool_choice).toEqual({ type: 'function', function: { name: 'record_city' } });

    const wrongArgs = await probe(w, canary, { kind: 'ok', output: 'tool_call', toolArgs: '{"city":"Lyon"}' });
    expect(wrongArgs.event.outcome).toBe('wrong_answer');
    expect(wrongArgs.event.answer_excerpt).toBe('[{"name":"record_city","arguments":{"city":"Lyon"}}]');
    const wrongTool = await probe(w, canary, { kind: 'ok', output: 'tool_call', toolName: 'delete_city', toolArgs: '{"city":"Paris"}' });
    expect(wrongTool.event).toMatchObject({ outcome: 'wrong_answer', message: expect.stringContaining('got a call of delete_city') });
    if (w === 'openai-chat' || w === 'azure-openai-chat' || w === 'openai-responses') {
      // These APIs send arguments as JSON text: a broken one is a wrong answer, not a crash.
      const broken = await probe(w, canary, { kind: 'ok', output: 'tool_call', toolArgs: '{"city":"Par' });
      expect(broken.event).toMatchObject({ outcome: 'wrong_answer', message: expect.stringContaining('arguments that are not JSON') });
      expect(broken.event.answer_excerpt).toContain('{\\"city\\":\\"Par');
    }
    const noCall = await probe(w, canary, { kind: 'ok', output: 'text', text: 'Paris' });
    expect(noCall.event).toMatchObject({ outcome: 'wrong_answer', answer_excerpt: 'Paris', message: expect.stringContaining('no tool call') });
  });

  it('reports the served model version the answer names', async () => {
    const { event } = await probe(w, { word: 'OK' }, { kind: 'ok', text: 'OK', servedModel: 'swapped-2026-12-01', fingerprint: 'fp_new0002' });
    expect(event.model_served).toBe('swapped-2026-12-01');
    if (w === 'openai-chat' || w === 'azure-openai-chat') expect(event.system_fingerprint).toBe('fp_new0002');
    else expect(event).not.toHaveProperty('system_fingerprint');
  });
});

describe('answer evidence', () => {
  it('redacts a key echoed in a wrong answer and cuts the excerpt', async () => {
    const text = `Sure! Your key is ${API_KEY} and sk-proj-AbCdEf0123456789xyzQQ. ${'lorem '.repeat(100)}`;
    const { event } = await probe('openai-chat', { word: 'OK' }, { kind: 'ok', text });
    expect(event.outcome).toBe('wrong_answer');
    expect(event.answer_excerpt).not.toContain(API_KEY);
    expect(event.answer_excerpt).not.toContain('sk-proj-AbCdEf');
    expect(event.answer_excerpt).toContain('[redacted]');
    expect(event.answer_excerpt!.length).toBeLessThanOrEqual(MAX_ANSWER_EXCERPT_CHARS);
  });

  it('a wrong answer outranks the latency ceiling: slow and wrong is wrong_answer, slow and right is slow', async () => {
    const over = { latency_ceiling_ms: 20 };
    expect((await probe('openai-chat', { word: 'OK' }, { kind: 'ok', text: 'OK', latencyMs: 60 }, over)).event.outcome).toBe('slow');
    expect((await probe('openai-chat', { word: 'OK' }, { kind: 'ok', text: 'No', latencyMs: 60 }, over)).event.outcome).toBe('wrong_answer');
  });

  it.each(WIRES)('a streamed %s probe reports the served model its events name', async (w) => {
    const model = `stream-${w}-${++seq}`;
    fake.script(model, { kind: 'ok', servedModel: `${model}-build-7`, fingerprint: 'fp_stream7' });
    const key = { provider: 'x', endpoint: 'chat', model };
    const { event } = await probeOnce(baseOf(w), w, model, { stream: true }, { over: { key } });
    expect(event).toMatchObject({ outcome: 'ok', model_served: `${model}-build-7` });
    if (w === 'openai-chat' || w === 'azure-openai-chat') expect(event.system_fingerprint).toBe('fp_stream7');
    else expect(event).not.toHaveProperty('system_fingerprint');
  });

  it('a target without a canary still reports the served model', async () => {
    const model = `plain-${++seq}`;
    fake.script(model, { kind: 'ok', servedModel: 'gpt-4o-2024-08-06' });
    const { event } = await probeOnce(fake.openaiBaseUrl, 'openai-chat', model);
    expect(event).toMatchObject({ outcome: 'ok', model_served: 'gpt-4o-2024-08-06', system_fingerprint: 'fp_fake0001' });
  });
});

describe('canary config', () => {
  const problemsOf = (canary: unknown, over: Record<string, unknown> = {}) =>
    validateConfig({ targets: [rawTarget('https://api.openai.com/v1', 'm', { canary, ...over })] }, { location: 'eu-west' }).problems.join('\n');

  it.each([
    [{}, 'canary: give exactly one of word, regex, json_schema, tool_call'],
    [{ word: 'OK', regex: 'x' }, 'canary: give exactly one of word, regex, json_schema, tool_call (got word, regex)'],
    [{ word: 'two words' }, 'canary.word: must be one word'],
    [{ regex: '(' }, 'canary.regex: is not a valid regular expression'],
    [{ json_schema: { type: 'strng' } }, 'canary.json_schema: is not a valid JSON Schema'],
    [{ json_schema: { type: 'string' } }, 'canary.json_schema: must describe an object'],
    [{ tool_call: { arguments: {} } }, 'canary.tool_call.name: is required'],
    [{ tool_call: { name: 'f' } }, 'canary.tool_call.arguments: is required'],
    [{ tool_call: { name: 'f', arguments: { a: 1 }, parameters: { type: 'object', properties: { a: { type: 'string' } } } } }, 'canary.tool_call.arguments: do not match tool_call.parameters'],
    [{ word: 'OK', case_fold: 'yes' }, 'canary.case_fold: must be true or false'],
    [{ regex: 'x', case_fold: true }, 'canary.case_fold: applies to word only'],
    [{ word: 'OK', seed: -1 }, 'canary.seed: must be an integer between 0'],
    [{ word: 'OK', expect: 'OK' }, 'canary.expect: unknown field'],
    ['OK', 'canary: must be an object'],
  ])('%j is refused naming the field', (canary, message) => {
    expect(problemsOf(canary)).toContain(`target "m" (targets[0]): ${message}`);
  });

  it('refuses a canary on a streamed request and on a kind that does not read answers', () => {
    expect(problemsOf({ word: 'OK' }, { request: { stream: true } })).toContain('canary: needs a non-streamed request (request.stream: false)');
    expect(problemsOf({ word: 'OK' }, { kind: 'openai-embeddings', request: {} })).toMatch(/canary: kind openai-embeddings does not check answers \(canaries work on [a-z-, ]*openai-chat/);
  });

  it('the plan names each target\'s canary and counts its schema in the cost', () => {
    const plain = configOf({ targets: [rawTarget('https://api.openai.com/v1', 'a', { price: { input_per_mtok: 1, output_per_mtok: 1 } })] });
    const config = configOf({
      targets: [
        rawTarget('https://api.openai.com/v1', 'a', { price: { input_per_mtok: 1, output_per_mtok: 1 }, canary: { json_schema: SUM_SCHEMA } }),
        rawTarget('https://api.openai.com/v1', 'b', { canary: { word: 'OK', case_fold: true } }),
      ],
    });
    const plan = buildPlan(config);
    expect(plan.rows.map((r) => r.canary)).toEqual(['JSON matching its schema (properties: sum)', 'the word "OK" (any case)']);
    expect(plan.rows[0]!.costPerDay!).toBeGreaterThan(buildPlan(plain).rows[0]!.costPerDay!);
    expect(formatPlan(config, plan)).toContain('answer canaries (a miss is a wrong_answer probe): a expects JSON matching its schema (properties: sum); b expects the word "OK" (any case)');
    expect(formatPlan(plain, buildPlan(plain))).toContain('answer canaries: none');
  });
});
