/**
 * Part of `npm run bench -- sdk` (alone: `npm run bench -- sdk --drills`, a short run):
 * per-call overhead of failure drills enabled but idle and of answer validation (issue 26),
 * beside the same call with both off — an operation run, and a request through the fetch
 * wrapper to a stub fetch answering a canned chat completion, so only the SDK's work is timed.
 */
import { createBreakerbox } from '../../sdk/index.ts';

interface Timing {
  loop(call: () => Promise<unknown>, n: number): Promise<number>;
  med(xs: number[]): number;
}

const OP_N = 20_000;
const FETCH_N = 3_000;
const ROUNDS = 5;

async function medianOf(t: Timing, call: () => Promise<unknown>, n: number): Promise<number> {
  await t.loop(call, n / 4);
  const runs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) runs.push(await t.loop(call, n));
  return t.med(runs);
}

/** Prints the figures; contenders interleaved over 3 passes so machine drift hits all alike. */
export async function drillsAndValidation(t: Timing): Promise<void> {
  const key = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
  const schema = { type: 'object', properties: { title: { type: 'string' }, priority: { enum: ['low', 'high'] } }, required: ['title', 'priority'], additionalProperties: false };
  const answer = { title: 'Printer on fire', priority: 'high' };
  const opOff = createBreakerbox().operation({ name: 'op', levels: [{ key, run: async () => answer }] });
  const opSchema = createBreakerbox().operation({ name: 'op', validate: schema, levels: [{ key, run: async () => answer }] });
  const opFn = createBreakerbox().operation({ name: 'op', validate: (v) => typeof (v as { title?: unknown }).title === 'string', levels: [{ key, run: async () => answer }] });

  const body = JSON.stringify({
    id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o', system_fingerprint: null,
    choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(answer), refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
  });
  const stub = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  const init = { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'triage' }] }) };
  const url = 'https://api.openai.com/v1/chat/completions';
  // Drills enabled but idle: the feed points at a closed port and retries in the background (unref'd).
  const idle = createBreakerbox({ telemetry: { url: 'http://127.0.0.1:9', service: 'bench', intervalMs: 3_600_000 }, drills: { enabled: true } });
  const via = (f: (u: string, i: RequestInit) => Promise<Response>) => async () => (await f(url, init)).text();
  const fetchOff = via(createBreakerbox().fetch({ fetch: stub }));
  const fetchDrills = via(idle.fetch({ fetch: stub }));
  const fetchValidate = via(createBreakerbox().fetch({ fetch: stub, validate: schema }));

  const x = { bare: [] as number[], off: [] as number[], schema: [] as number[], fn: [] as number[], stub: [] as number[], fOff: [] as number[], fDrills: [] as number[], fValidate: [] as number[] };
  for (let pass = 0; pass < 3; pass++) {
    x.bare.push(await medianOf(t, async () => answer, OP_N));
    x.off.push(await medianOf(t, () => opOff.run(undefined), OP_N));
    x.schema.push(await medianOf(t, () => opSchema.run(undefined), OP_N));
    x.fn.push(await medianOf(t, () => opFn.run(undefined), OP_N));
    x.stub.push(await medianOf(t, async () => (await stub()).text(), FETCH_N));
    x.fOff.push(await medianOf(t, fetchOff, FETCH_N));
    x.fDrills.push(await medianOf(t, fetchDrills, FETCH_N));
    x.fValidate.push(await medianOf(t, fetchValidate, FETCH_N));
  }
  const m = (k: keyof typeof x) => t.med(x[k]);
  const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
  console.log(`\ndrills and validation (${OP_N} operation runs / ${FETCH_N} fetches x ${ROUNDS} rounds x 3 passes, medians; overhead over a bare await / the stub fetch)`);
  console.log(`operation run, no validation:            ${us(m('off') - m('bare'))}/call`);
  console.log(`operation run, validate (JSON Schema):   ${us(m('schema') - m('bare'))}/call`);
  console.log(`operation run, validate (function):      ${us(m('fn') - m('bare'))}/call`);
  console.log(`fetch wrapper, drills off, no validation: ${us(m('fOff') - m('stub'))}/call`);
  console.log(`fetch wrapper, drills enabled but idle:   ${us(m('fDrills') - m('stub'))}/call`);
  console.log(`fetch wrapper, validate (JSON Schema):    ${us(m('fValidate') - m('stub'))}/call`);
  await idle.close(10);
}
