/**
 * The APIs the failover bench runs its failure modes on — OpenAI chat completions, the
 * OpenAI Responses API, Anthropic messages and the Gemini API (`@google/genai`, SSE
 * streams) — each as its official client calls it:
 * the request body, how a caller reads the answer (streamed text appended to a sink as a
 * UI would show it), and what a complete answer's finish looks like.
 */
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { generateText, streamText } from 'ai';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import type { BreakerboxFetchOptions } from '../../sdk/index.ts';
import type { FakeProvider } from '../support/fake-provider.ts';

/** One request of the bench: streamed or not, to a model. */
export interface BenchRequest {
  model: string;
  stream: boolean;
}

/** What reading one request gave (the text went to the sink). */
export interface ReadResult {
  finish: string | null;
  model: string;
  /** `x-breakerbox-attempts`, when the answer carried it (non-streamed reads). */
  attempts?: number;
}

/** An official client bound to a fake provider and a fetch. */
export type ClientOf = (fake: FakeProvider, opts: { fetch?: typeof fetch; maxRetries?: number }) => (req: BenchRequest, signal: AbortSignal, sink: { text: string }) => Promise<ReadResult>;

/** One API under test. */
export interface BenchApi {
  name: string;
  primary: string;
  /** A long-context model: a sensible fallback for context-length errors too. */
  fallback: string;
  /** The finish of a complete answer, and of one stopped by a content filter. */
  finishes: { ok: string; filter: string };
  /** The end event's name, for the mode list. */
  endEvent: string;
  client: ClientOf;
  /** What `bb.fetch` needs besides timeouts and fallbacks (default: the client's `baseURL`). */
  fetchOptions?: (fake: FakeProvider) => BreakerboxFetchOptions;
}

const chatClient: ClientOf = (fake, o) => {
  const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, logLevel: 'off', ...o });
  return async (req, signal, sink) => {
    const messages = [{ role: 'user' as const, content: 'Say hello' }];
    if (req.stream) {
      const stream = await client.chat.completions.create({ model: req.model, messages, stream: true, stream_options: { include_usage: true } }, { signal });
      let finish: string | null = null;
      let model = '';
      for await (const c of stream) {
        sink.text += c.choices[0]?.delta.content ?? '';
        finish = c.choices[0]?.finish_reason ?? finish;
        model = c.model || model;
      }
      return { finish, model };
    }
    const { data, response } = await client.chat.completions.create({ model: req.model, messages }, { signal }).withResponse();
    sink.text += data.choices[0]?.message.content ?? '';
    return { finish: data.choices[0]?.finish_reason ?? null, model: data.model, attempts: attemptsOf(response) };
  };
};

function responseFinish(r: OpenAI.Responses.Response): string {
  return r.status === 'incomplete' ? (r.incomplete_details?.reason ?? 'incomplete') : (r.status ?? 'unknown');
}

const responsesClient: ClientOf = (fake, o) => {
  const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, logLevel: 'off', ...o });
  return async (req, signal, sink) => {
    if (req.stream) {
      const stream = await client.responses.create({ model: req.model, input: 'Say hello', stream: true }, { signal });
      let finish: string | null = null;
      let model = '';
      for await (const e of stream) {
        if (e.type === 'response.output_text.delta') sink.text += e.delta;
        if (e.type === 'response.completed' || e.type === 'response.incomplete') {
          finish = responseFinish(e.response);
          model = e.response.model;
        }
        // A failed response or an error event ends the answer without one.
        if (e.type === 'response.failed' || e.type === 'error') throw new Error(`stream ended with ${e.type}`);
      }
      return { finish, model };
    }
    const { data, response } = await client.responses.create({ model: req.model, input: 'Say hello' }, { signal }).withResponse();
    sink.text += data.output_text;
    return { finish: responseFinish(data), model: data.model, attempts: attemptsOf(response) };
  };
};

const messagesClient: ClientOf = (fake, o) => {
  const client = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: fake.apiKey, logLevel: 'off', ...o });
  return async (req, signal, sink) => {
    const body = { model: req.model, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Say hello' }] };
    if (req.stream) {
      const stream = await client.messages.create({ ...body, stream: true }, { signal });
      let finish: string | null = null;
      let model = '';
      for await (const e of stream) {
        if (e.type === 'message_start') model = e.message.model;
        if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') sink.text += e.delta.text;
        if (e.type === 'message_delta') finish = e.delta.stop_reason ?? finish;
      }
      return { finish, model };
    }
    const { data, response } = await client.messages.create(body, { signal }).withResponse();
    for (const b of data.content) if (b.type === 'text') sink.text += b.text;
    return { finish: data.stop_reason, model: data.model, attempts: attemptsOf(response) };
  };
};

/**
 * `@google/genai` (its own defaults: no retries, no timeout). `fetch` goes in
 * `httpOptions.fetch`; the client has no `maxRetries` (retries are off unless
 * `httpOptions.retryOptions` is set).
 */
const geminiClient: ClientOf = (fake, o) => {
  const client = new GoogleGenAI({ apiKey: fake.apiKey, httpOptions: { baseUrl: fake.geminiBaseUrl, ...(o.fetch ? { fetch: o.fetch } : {}) } });
  return async (req, signal, sink) => {
    const params = { model: req.model, contents: 'Say hello', config: { abortSignal: signal } };
    if (req.stream) {
      const stream = await client.models.generateContentStream(params);
      let finish: string | null = null;
      let model = '';
      for await (const c of stream) {
        sink.text += c.text ?? '';
        finish = c.candidates?.[0]?.finishReason ?? finish;
        model = c.modelVersion ?? model;
      }
      return { finish, model };
    }
    const r = await client.models.generateContent(params);
    sink.text += r.text ?? '';
    const attempts = r.sdkHttpResponse?.headers?.['x-breakerbox-attempts'];
    return { finish: r.candidates?.[0]?.finishReason ?? null, model: r.modelVersion ?? '', attempts: attempts ? Number(attempts) : undefined };
  };
};

/** Amazon Bedrock Converse / ConverseStream through the Vercel AI SDK (`ai@7`), SigV4-signed by the client. */
const bedrockClient: ClientOf = (fake, o) => {
  const bedrock = createAmazonBedrock({ region: 'us-east-1', baseURL: fake.bedrockBaseUrl, ...fake.awsCredentials, ...(o.fetch ? { fetch: o.fetch } : {}) });
  const retries = o.maxRetries === undefined ? {} : { maxRetries: o.maxRetries };
  return async (req, signal, sink) => {
    if (req.stream) {
      const result = streamText({ model: bedrock(req.model), prompt: 'Say hello', abortSignal: signal, ...retries, onError: () => undefined });
      let finish: string | null = null;
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') sink.text += part.text;
        if (part.type === 'finish') finish = part.finishReason;
        if (part.type === 'error') throw part.error instanceof Error ? part.error : new Error(String(part.error));
      }
      const headers = (await result.response).headers ?? {};
      return { finish, model: headers['x-breakerbox-model'] ?? req.model };
    }
    const r = await generateText({ model: bedrock(req.model), prompt: 'Say hello', abortSignal: signal, ...retries });
    sink.text += r.text;
    const headers = r.response.headers ?? {};
    const attempts = headers['x-breakerbox-attempts'];
    return { finish: r.finishReason, model: headers['x-breakerbox-model'] ?? req.model, ...(attempts ? { attempts: Number(attempts) } : {}) };
  };
};

function attemptsOf(response: Response): number | undefined {
  const a = response.headers.get('x-breakerbox-attempts');
  return a ? Number(a) : undefined;
}

/** The APIs, in table order. */
export const APIS: BenchApi[] = [
  { name: 'chat completions (openai@6)', primary: 'gpt-4o', fallback: 'gpt-4.1', finishes: { ok: 'stop', filter: 'content_filter' }, endEvent: '[DONE]', client: chatClient },
  { name: 'Responses API (openai@6)', primary: 'gpt-4o', fallback: 'gpt-4.1', finishes: { ok: 'completed', filter: 'content_filter' }, endEvent: 'response.completed', client: responsesClient },
  {
    name: 'Anthropic messages (@anthropic-ai/sdk)',
    primary: 'claude-sonnet-4',
    fallback: 'claude-3-7-sonnet',
    finishes: { ok: 'end_turn', filter: 'refusal' },
    endEvent: 'message_stop',
    client: messagesClient,
  },
  {
    name: 'Gemini API (@google/genai)',
    primary: 'gemini-2.0-flash',
    fallback: 'gemini-2.5-pro',
    finishes: { ok: 'STOP', filter: 'SAFETY' },
    endEvent: 'the chunk with finishReason',
    client: geminiClient,
  },
  {
    name: 'Amazon Bedrock Converse (@ai-sdk/amazon-bedrock + ai)',
    primary: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
    fallback: 'us.amazon.nova-pro-v1:0',
    finishes: { ok: 'stop', filter: 'content-filter' },
    endEvent: 'metadata',
    client: bedrockClient,
    fetchOptions: (fake) => ({ region: 'us-east-1', signer: new SignatureV4({ credentials: fake.awsCredentials, region: 'us-east-1', service: 'bedrock', sha256: Sha256 }) }),
  },
];
