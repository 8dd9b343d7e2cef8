/**
 * The fetch wrapper's overhead per call on each model API (issue 35's target: every API
 * within 10 % of chat's figure): one request through `bb.fetch` to a stub fetch answering a
 * canned answer of that API, read whole, minus the same read from the stub alone — so only
 * the SDK's work is timed (reading the request, the key's policies, the attempt, the JSON
 * facts or the stream guard). Cases are interleaved over passes, each pass starting one case
 * later, so machine drift and garbage hit all alike; medians of rounds and passes.
 *
 * Run: `npm run bench -- api-overhead`.
 */
import { createBreakerbox } from '../../sdk/index.ts';

const N = 2_000;
const ROUNDS = 5;
const PASSES = 6;
const WORDS = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy'];

const sse = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
const chatChunk = (delta: object, finish: string | null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] });
const geminiChunk = (i: number) => ({
  candidates: [{ content: { parts: [{ text: WORDS[i] }], role: 'model' }, ...(i === WORDS.length - 1 ? { finishReason: 'STOP' } : {}), index: 0 }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: i + 1, totalTokenCount: i + 6 },
  modelVersion: 'gemini-2.0-flash',
  responseId: 'r1',
});

interface Case {
  name: string;
  url: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  answer: string;
  contentType: string;
}

const chatBody = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
const geminiBody = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
const openaiKey = { 'content-type': 'application/json', authorization: 'Bearer k' };
const googleKey = { 'content-type': 'application/json', 'x-goog-api-key': 'k' };
const CASES: Case[] = [
  {
    name: 'chat completions, JSON',
    url: 'https://api.openai.com/v1/chat/completions',
    body: chatBody,
    headers: openaiKey,
    answer: JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: WORDS.join('') }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 8, total_tokens: 13 } }),
    contentType: 'application/json',
  },
  {
    name: 'chat completions, SSE stream',
    url: 'https://api.openai.com/v1/chat/completions',
    body: { ...chatBody, stream: true, stream_options: { include_usage: true } },
    headers: openaiKey,
    answer: [chatChunk({ role: 'assistant', content: '' }, null), ...WORDS.map((w) => chatChunk({ content: w }, null)), chatChunk({}, 'stop')].map(sse).join('') + sse({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [], usage: { prompt_tokens: 5, completion_tokens: 8, total_tokens: 13 } }) + 'data: [DONE]\n\n',
    contentType: 'text/event-stream',
  },
  {
    name: 'Gemini generateContent, JSON',
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent',
    body: geminiBody,
    headers: googleKey,
    answer: JSON.stringify({ candidates: [{ content: { parts: [{ text: WORDS.join('') }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 8, totalTokenCount: 13 }, modelVersion: 'gemini-2.0-flash', responseId: 'r1' }),
    contentType: 'application/json',
  },
  {
    name: 'Gemini streamGenerateContent, SSE (alt=sse)',
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse',
    body: geminiBody,
    headers: googleKey,
    answer: WORDS.map((_w, i) => `data: ${JSON.stringify(geminiChunk(i))}\r\n\r\n`).join(''),
    contentType: 'text/event-stream',
  },
  {
    name: 'Gemini streamGenerateContent, JSON array',
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent',
    body: geminiBody,
    headers: googleKey,
    answer: `[${WORDS.map((_w, i) => JSON.stringify(geminiChunk(i), null, 2)).join('\n,\r\n')}\n]`,
    contentType: 'application/json; charset=UTF-8',
  },
  {
    name: 'Vertex AI generateContent, JSON',
    url: 'https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent',
    body: geminiBody,
    headers: { 'content-type': 'application/json', authorization: 'Bearer ya29.k' },
    answer: JSON.stringify({ candidates: [{ content: { parts: [{ text: WORDS.join('') }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 8, totalTokenCount: 13 }, modelVersion: 'gemini-2.0-flash' }),
    contentType: 'application/json',
  },
];

async function loop(call: () => Promise<unknown>, n: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - t0) / n;
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function medianOf(call: () => Promise<unknown>): Promise<number> {
  await loop(call, N / 4);
  const runs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) runs.push(await loop(call, N));
  return med(runs);
}

const bb = createBreakerbox();
const timed = CASES.map((c) => {
  const stub = async () => new Response(c.answer, { status: 200, headers: { 'content-type': c.contentType } });
  const init = { method: 'POST', headers: c.headers, body: JSON.stringify(c.body) };
  const wrapped = bb.fetch({ fetch: stub });
  return { c, bare: async () => (await stub()).text(), through: async () => (await wrapped(c.url, init)).text(), stub: [] as number[], bb: [] as number[] };
});
let calls = 0;
const notOk = new Set<string>();
bb.onCall((e) => {
  calls++;
  if (!e.ok) notOk.add(`${e.provider}/${e.endpoint}/${e.model}: ${e.errorClass}`);
});
for (let pass = 0; pass < PASSES; pass++) {
  // Each pass starts one case later, so no case always follows the same one (a stream's garbage, a GC).
  for (let k = 0; k < timed.length; k++) {
    const t = timed[(k + pass) % timed.length]!;
    t.stub.push(await medianOf(t.bare));
    t.bb.push(await medianOf(t.through));
  }
}
const us = (ns: number) => `${(ns / 1000).toFixed(1)} µs`;
console.log(`node ${process.version}; fetch wrapper overhead per call over the stub fetch (${N} calls x ${ROUNDS} rounds x ${PASSES} passes, medians); ${calls} calls${notOk.size ? `, NOT OK: ${[...notOk].join('; ')}` : ', all ok'}`);
const chat = new Map<boolean, number>();
const rows = timed.map((t) => {
  const over = med(t.bb) - med(t.stub);
  const streamed = t.c.name.includes('stream');
  if (t.c.name.startsWith('chat')) chat.set(streamed, over);
  return { t, over, streamed };
});
console.log('');
console.log('| API | overhead per call | vs chat (same framing kind) |');
console.log('|---|---|---|');
for (const r of rows) {
  const base = chat.get(r.streamed)!;
  console.log(`| ${r.t.c.name} | ${us(r.over)} | ${r.t.c.name.startsWith('chat') ? '—' : `${(((r.over - base) / base) * 100).toFixed(0)} %`} |`);
}
await bb.close(10);
process.exit(0);
