/**
 * Amazon Bedrock runtime in the fake provider: `POST /model/{modelId}/converse`,
 * `/converse-stream`, `/invoke` and `/invoke-with-response-stream`, as
 * `@ai-sdk/amazon-bedrock` and the AWS SDK call them. Every request must carry a SigV4
 * signature that the fake recomputes with AWS's own `@smithy/signature-v4` over the wire
 * path, the signed headers and the raw body (or a Bedrock API key as `Authorization:
 * Bearer`): a request whose signature does not match gets 403 `InvalidSignatureException`,
 * as AWS answers, so a fallback sent with a stale signature fails here as it would there.
 *
 * Converse answers `{output:{message}, stopReason, usage:{inputTokens,outputTokens}}`;
 * ConverseStream sends AWS event-stream frames `messageStart`, `contentBlockDelta`…,
 * `contentBlockStop`, `messageStop`, `metadata`. Invoke bodies are the model's own: an
 * Anthropic messages body (`anthropic_version: "bedrock-2023-05-31"`) is answered with an
 * Anthropic message, streamed as `chunk` events whose `bytes` hold each Anthropic event
 * (the last with `amazon-bedrock-invocationMetrics`). Errors carry `x-amzn-ErrorType`.
 *
 * The same `fake.script` faults as the other APIs: `rate_limit` → 429 ThrottlingException,
 * `status` → that status with its AWS error type (`errorType` overrides), `quota` →
 * ServiceQuotaExceededException, `context_length` → ValidationException "Input is too long",
 * `model_not_found` → ResourceNotFoundException, `finish_length` → `max_tokens`,
 * `content_filter` → `guardrail_intervened` (`as: 'error'`: a 400 ValidationException),
 * `cut_stream`, `stall`, `malformed_chunk` (a frame whose CRC is wrong), `no_end_event` (no
 * `metadata`), `stream_error` → an exception frame (`code`, default
 * `modelStreamErrorException`), `reset`, `no_response`, `slow_first_token`. Text answers only.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { encodeEventStreamMessage } from '@breakerbox/protocol';
import { answerText, tokenText } from './fake-provider-bodies.ts';
import { shapeOf, type AnswerDefaults } from './fake-provider-answer.ts';
import { messagesFrames, messagesJson } from './fake-provider-messages.ts';
import type { Attempt, Fault } from './fake-provider-types.ts';
import { flushed, numberOr, sleep } from './fake-provider-util.ts';

/** AWS credentials the fake accepts. */
export interface FakeAwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The credentials a fake provider accepts by default. */
export const FAKE_AWS_CREDENTIALS: FakeAwsCredentials = { accessKeyId: 'AKIAFAKEBEDROCK00001', secretAccessKey: 'fake/bedrock/secret/key/0000000000000000' };

/** A Bedrock operation. */
export type BedrockOp = 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream';

const PATH = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

/** The Bedrock operation and model of a path, or undefined when it is not a Bedrock runtime path. */
export function bedrockRouteOf(path: string): { op: BedrockOp; model: string } | undefined {
  const m = PATH.exec(path);
  return m ? { op: m[2] as BedrockOp, model: decodeURIComponent(m[1]!) } : undefined;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  401: 'UnrecognizedClientException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

/** Everything one Bedrock request needs from the fake provider. */
export interface BedrockContext {
  req: IncomingMessage;
  res: ServerResponse;
  raw: string;
  op: BedrockOp;
  model: string;
  attempt: Attempt;
  nextFault: (model: string) => Fault;
  defaults: AnswerDefaults;
  credentials: FakeAwsCredentials[];
  apiKeys: string[];
  signal: AbortSignal;
}

function sendError(c: BedrockContext, status: number, type: string, message: string): void {
  c.attempt.status = status;
  c.res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-requestid': c.attempt.requestId,
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  });
  c.res.end(JSON.stringify({ message }));
}

/** Why the request's SigV4 signature (or API key) is not valid, or undefined when it is. */
async function authProblem(c: BedrockContext): Promise<{ status: number; type: string; message: string } | undefined> {
  const auth = c.req.headers.authorization ?? '';
  const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1];
  if (bearer !== undefined) return c.apiKeys.includes(bearer) ? undefined : { status: 403, type: 'UnrecognizedClientException', message: 'Invalid API Key format: Must start with pre-defined prefix' };
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return { status: 403, type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, keyId, , region, service, signedList, signature] = m;
  const cred = c.credentials.find((k) => k.accessKeyId === keyId);
  if (!cred) return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  const amzDate = String(c.req.headers['x-amz-date'] ?? '');
  const d = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!d) return { status: 403, type: 'IncompleteSignatureException', message: 'Date must be in ISO-8601 basic format' };
  const signed = signedList!.split(';');
  const headers: Record<string, string> = {};
  for (const h of signed) {
    const v = c.req.headers[h];
    if (v === undefined) return { status: 403, type: 'IncompleteSignatureException', message: `Signed header ${h} is missing` };
    headers[h] = Array.isArray(v) ? v.join(',') : v;
  }
  const [rawPath, rawQuery = ''] = (c.req.url ?? '/').split('?');
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(rawQuery)) query[k] = v;
  const signer = new SignatureV4({
    credentials: { accessKeyId: cred.accessKeyId, secretAccessKey: cred.secretAccessKey, ...(headers['x-amz-security-token'] ? { sessionToken: headers['x-amz-security-token'] } : {}) },
    region: region!,
    service: service!,
    sha256: Sha256,
    applyChecksum: false,
  });
  const host = String(c.req.headers.host ?? '');
  const out = await signer.sign(
    { method: c.req.method ?? 'POST', protocol: 'http:', hostname: host.replace(/:\d+$/, ''), path: rawPath!, query, headers, body: c.raw },
    { signingDate: new Date(Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!)) },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(out.headers.authorization))?.[1];
  const expectedHeaders = /SignedHeaders=([^,]+)/.exec(String(out.headers.authorization))?.[1];
  if (cred.sessionToken !== undefined && headers['x-amz-security-token'] !== cred.sessionToken) {
    return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  if (expected !== signature || expectedHeaders !== signedList) {
    return { status: 403, type: 'InvalidSignatureException', message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.' };
  }
  c.attempt.sigv4 = { accessKeyId: keyId!, region: region!, service: service! };
  return undefined;
}

function eventFrame(type: string, payload: unknown): Uint8Array {
  return encodeEventStreamMessage({
    headers: { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    body: new TextEncoder().encode(JSON.stringify(payload)),
  });
}

function exceptionFrame(type: string, message: string): Uint8Array {
  return encodeEventStreamMessage({
    headers: { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    body: new TextEncoder().encode(JSON.stringify({ message })),
  });
}

const STOP: Record<string, string> = { end_turn: 'end_turn', max_tokens: 'max_tokens', refusal: 'guardrail_intervened', tool_use: 'tool_use' };

/** The frames of one streamed answer: head, one per token, tail, end. */
interface BinaryFrames {
  head: Uint8Array[];
  token: (i: number) => Uint8Array;
  tail: Uint8Array[];
  end: Uint8Array;
}

/** Serves one Bedrock runtime request. */
export async function handleBedrock(c: BedrockContext): Promise<void> {
  const { res, attempt } = c;
  attempt.stream = c.op.endsWith('stream');
  if (c.req.method !== 'POST') return sendError(c, 404, 'UnknownOperationException', 'Unknown operation');
  const auth = await authProblem(c);
  if (auth) return sendError(c, auth.status, auth.type, auth.message);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(c.raw) as Record<string, unknown>;
    attempt.body = body;
  } catch {
    return sendError(c, 400, 'SerializationException', 'Could not parse request body into json');
  }
  const fault = c.nextFault(c.model);
  attempt.fault = fault.kind;
  if (fault.kind === 'reset') return void c.req.socket.destroy();
  if (fault.kind === 'no_response') return;
  await sleep(fault.latencyMs ?? 0, c.signal);
  if (c.signal.aborted) return;
  switch (fault.kind) {
    case 'rate_limit':
      return sendError(c, 429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
    case 'quota':
      return sendError(c, 400, 'ServiceQuotaExceededException', 'Your request exceeds the service quota for your account.');
    case 'status':
      return sendError(c, fault.status, fault.errorType ?? ERROR_TYPES[fault.status] ?? (fault.status >= 500 ? 'InternalServerException' : 'ValidationException'), fault.message ?? `The server answered ${fault.status}.`);
    case 'context_length':
      return sendError(c, 400, 'ValidationException', 'Input is too long for requested model.');
    case 'model_not_found':
      return sendError(c, 404, 'ResourceNotFoundException', 'Could not resolve the foundation model from the provided model identifier.');
    case 'content_filter':
      if (fault.as === 'error') return sendError(c, 400, 'ValidationException', 'The content was blocked by the content filtering policy.');
      break;
    default:
      break;
  }
  const converse = c.op.startsWith('converse');
  const cap = converse ? (body.inferenceConfig as { maxTokens?: unknown } | undefined)?.maxTokens : body.max_tokens;
  const shape = shapeOf('messages', { messages: body.messages, system: body.system, max_tokens: numberOr(cap, Infinity), model: c.model }, { ...fault, output: 'text' }, c.defaults);
  const stop = STOP[shape.finish] ?? shape.finish;
  const usage = { inputTokens: shape.inputTokens, outputTokens: shape.tokens, totalTokens: shape.inputTokens + shape.tokens };
  const headers = { 'x-amzn-requestid': attempt.requestId };
  attempt.status = 200;

  if (!attempt.stream) {
    if (fault.kind === 'slow_first_token') await sleep(fault.ms, c.signal);
    if (c.signal.aborted) return;
    const full = converse
      ? JSON.stringify({ output: { message: { role: 'assistant', content: [{ text: answerText(shape) }] } }, stopReason: stop, usage, metrics: { latencyMs: 42 } })
      : messagesJson(shape);
    const extra = converse ? {} : { 'x-amzn-bedrock-input-token-count': String(shape.inputTokens), 'x-amzn-bedrock-output-token-count': String(shape.tokens) };
    if (fault.kind === 'cut_stream' || fault.kind === 'stall' || fault.kind === 'malformed_chunk') {
      res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(full)) });
      await flushed(res, full.slice(0, Math.floor(full.length / 2)));
      if (fault.kind !== 'stall') res.destroy();
      return;
    }
    attempt.tokensSent = shape.tokens;
    res.writeHead(200, { ...headers, ...extra, 'content-type': 'application/json' });
    res.end(full);
    return;
  }

  const frames: BinaryFrames = converse ? converseFrames(shape.tokens, shape.shift ?? 0, stop, usage) : invokeFrames(shape);
  res.writeHead(200, { ...headers, 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' });
  let lastWrite = flushed(res, Buffer.concat(frames.head));
  const cut = async () => {
    await lastWrite;
    if ((fault as { how?: string }).how === 'end') res.end();
    else res.destroy();
  };
  const failMidStream = () => {
    const f = fault as { code?: string };
    res.end(exceptionFrame(f.code ?? 'modelStreamErrorException', 'The model stream failed: please retry your request.'));
  };
  for (let i = 0; i < shape.tokens; i++) {
    await sleep(i === 0 && fault.kind === 'slow_first_token' ? fault.ms : (fault.tokenIntervalMs ?? c.defaults.tokenIntervalMs), c.signal);
    if (c.signal.aborted) return;
    if (fault.kind === 'cut_stream' && i === fault.afterTokens) return cut();
    if (fault.kind === 'stall' && i === fault.afterTokens) return;
    if (fault.kind === 'stream_error' && i === fault.afterTokens) return failMidStream();
    if (fault.kind === 'malformed_chunk' && i === fault.afterTokens) {
      const bad = frames.token(i).slice();
      bad[bad.length - 1]! ^= 0xff; // its message CRC no longer matches
      res.write(bad);
    }
    lastWrite = flushed(res, frames.token(i));
    attempt.tokensSent = i + 1;
  }
  if (fault.kind === 'cut_stream' && fault.afterTokens >= shape.tokens) return cut();
  if (fault.kind === 'stall' && fault.afterTokens >= shape.tokens) return;
  if (fault.kind === 'stream_error' && fault.afterTokens >= shape.tokens) return failMidStream();
  for (const f of frames.tail) res.write(f);
  if (fault.kind === 'no_end_event') {
    if (!fault.keepOpen) res.end();
    return;
  }
  res.end(frames.end);
}

function converseFrames(tokens: number, shift: number, stop: string, usage: Record<string, number>): BinaryFrames {
  return {
    head: [eventFrame('messageStart', { p: 'abcdefghij', role: 'assistant' })],
    token: (i) => eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: tokenText(i + shift) }, p: 'abcdefghijklmnop' }),
    tail: [eventFrame('contentBlockStop', { contentBlockIndex: 0, p: 'abcd' }), eventFrame('messageStop', { p: 'abcdefg', stopReason: stop })],
    end: eventFrame('metadata', { metrics: { latencyMs: 42 }, p: 'abc', usage }),
  };
}

/** An Anthropic model's stream through InvokeModelWithResponseStream: each SSE event's JSON as a `chunk`. */
function invokeFrames(shape: ReturnType<typeof shapeOf>): BinaryFrames {
  const m = messagesFrames(shape);
  const chunk = (sse: string, extra?: Record<string, unknown>) => {
    const data = /^data: (.*)$/m.exec(sse)![1]!;
    const inner = extra ? { ...(JSON.parse(data) as object), ...extra } : JSON.parse(data);
    return eventFrame('chunk', { bytes: Buffer.from(JSON.stringify(inner)).toString('base64'), p: 'abcdef' });
  };
  const metrics = { 'amazon-bedrock-invocationMetrics': { inputTokenCount: shape.inputTokens, outputTokenCount: shape.tokens, invocationLatency: 42, firstByteLatency: 10 } };
  return {
    head: m.head.filter((f) => !f.startsWith('event: ping')).map((f) => chunk(f)),
    token: (i) => chunk(m.token(i)),
    tail: m.tail.map((f) => chunk(f)),
    end: chunk(m.end, metrics),
  };
}

/** A fresh Bedrock request id (`x-amzn-requestid`). */
export function newBedrockRequestId(): string {
  return randomUUID();
}
