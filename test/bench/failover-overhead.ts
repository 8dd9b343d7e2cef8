/**
 * The fetch wrapper's own cost per call on each API of the failover bench: `bb.fetch` over
 * an in-memory provider that answers that API's JSON at once, minus the same provider
 * called without the wrapper, median of interleaved rounds. Bedrock's request carries a
 * SigV4 `authorization` header (the unchanged primary is sent as signed: nothing is signed
 * again). The target is each API within 10 % of chat's figure.
 */
import { createBreakerbox } from '../../sdk/index.ts';

interface ApiCase {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  answer: string;
}

const CASES: ApiCase[] = [
  {
    name: 'chat completions',
    url: 'https://api.openai.com/v1/chat/completions',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    answer: JSON.stringify({
      id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello there', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
    }),
  },
  {
    name: 'Anthropic messages',
    url: 'https://api.anthropic.com/v1/messages',
    headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet-4', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
    answer: JSON.stringify({
      id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'text', text: 'hello there' }],
      stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 11, output_tokens: 2 },
    }),
  },
  {
    name: 'Bedrock Converse',
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
    headers: {
      authorization: 'AWS4-HMAC-SHA256 Credential=AKIAFAKE/20261203/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=' + '0'.repeat(64),
      'x-amz-date': '20261203T060000Z',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }], inferenceConfig: { maxTokens: 64 } }),
    answer: JSON.stringify({
      output: { message: { role: 'assistant', content: [{ text: 'hello there' }] } }, stopReason: 'end_turn',
      usage: { inputTokens: 11, outputTokens: 2, totalTokens: 13 }, metrics: { latencyMs: 1 },
    }),
  },
];

async function loop(call: () => Promise<unknown>, n: number): Promise<number> {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - t) / n;
}

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Per-API wrapper overhead, µs/call, printed as a table. */
export async function fetchOverheadPerApi(): Promise<void> {
  const N = 2_000;
  const ROUNDS = 9;
  const runs = CASES.map((c) => {
    const stub = async () => new Response(c.answer, { status: 200, headers: { 'content-type': 'application/json' } });
    const box = createBreakerbox();
    const wrapped = box.fetch({ fetch: stub });
    const init = { method: 'POST', headers: c.headers, body: c.body };
    return {
      c,
      box,
      bare: async () => (await stub()).text(),
      wrapped: async () => (await wrapped(c.url, init)).text(),
      totals: { bare: [] as number[], wrapped: [] as number[] },
    };
  });
  for (const r of runs) {
    await loop(r.bare, N / 4);
    await loop(r.wrapped, N / 4);
  }
  // The APIs take turns every round, so the shared machine's drift hits them alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of runs) {
      r.totals.bare.push(await loop(r.bare, N));
      r.totals.wrapped.push(await loop(r.wrapped, N));
    }
  }
  const over = runs.map((r) => (med(r.totals.wrapped) - med(r.totals.bare)) / 1000);
  console.log('');
  console.log(`### fetch wrapper overhead per call (in-memory provider, ${N} sequential calls x ${ROUNDS} interleaved rounds, medians)`);
  console.log('');
  console.log('| API | overhead per call | against chat | target |');
  console.log('|---|---|---|---|');
  runs.forEach((r, i) => {
    const vs = over[i]! / over[0]! - 1;
    console.log(`| ${r.c.name} | ${over[i]!.toFixed(1)} µs | ${i === 0 ? '—' : `${vs >= 0 ? '+' : ''}${(vs * 100).toFixed(0)} %`} | ${i === 0 ? '' : Math.abs(vs) <= 0.1 || vs < 0 ? 'within 10 %' : 'over 10 %'} |`);
  });
  for (const r of runs) await r.box.close(100);
}
