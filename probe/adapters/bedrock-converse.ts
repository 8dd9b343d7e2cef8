/**
 * `bedrock-converse`: Amazon Bedrock's `POST /model/{modelId}/converse`. `base_url` is the
 * runtime endpoint, `https://bedrock-runtime.{region}.amazonaws.com`. The request is signed
 * with SigV4 (`@smithy/signature-v4`, service `bedrock`) from the standard AWS environment
 * or profile (`aws-credentials.ts`), for the region of the host (else `request.region`, else
 * `AWS_REGION`); with `api_key_env` a Bedrock API key is sent as `Authorization: Bearer`
 * instead. The cost cap is `inferenceConfig.maxTokens`; `thinking_budget` turns on an
 * Anthropic model's extended thinking (`additionalModelRequestFields.thinking`), its budget
 * counted in `max_tokens` as on the messages kind. `stopReason` `max_tokens` is truncated,
 * `guardrail_intervened` / `content_filtered` a policy refusal (the protocol's list).
 * `stream: true` probes `/converse-stream`, its AWS event-stream frames read by the
 * protocol's `AwsEventReader` (first token: the first text delta).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { AwsEventReader, classifyAwsError, type SseEvent } from '@breakerbox/protocol';
import type { FieldReader } from '../config-fields.ts';
import type { AwsCredentials } from '../aws-credentials.ts';
import { count, endVerdict, estimateChatTokens, isObject, joinUrl, malformed, parseChatRequest, tryJson, type ChatRequest } from './chat-request.ts';
import type { OutgoingRequest, ParseContext, ProbeAdapter, ShapeVerdict, StreamChecker, StreamStep, Usage } from './types.ts';

interface ConverseRequest extends ChatRequest {
  /** Signing region when the host names none (a VPC endpoint, a proxy). */
  region: string | undefined;
  thinkingBudget: number | undefined;
}

const HOST = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;
const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;
const ANSWER_ROOM = 64;

/** `node:crypto`'s SHA-256 in the shape `SignatureV4` takes (a hash, or an HMAC when given a secret). */
const bytes = (d: ArrayBuffer | ArrayBufferView): Uint8Array => (ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : new Uint8Array(d));

class NodeSha256 {
  private readonly h: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(typeof data === 'string' ? data : bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.h.digest()));
  }
}

/**
 * ConverseStream, event by event: the first token is the first non-empty text delta (never
 * a `reasoningContent` delta: the thinking is part of the wait), `messageStop` carries the
 * stop reason, `metadata` the usage; an exception frame ends the probe, classified.
 */
class ConverseStreamChecker implements StreamChecker {
  private started = false;
  private sawToken = false;
  private stop: string | undefined;
  private usage: Usage | undefined;

  onEvent(ev: SseEvent): StreamStep {
    const sep = ev.event.indexOf(':');
    if (sep > 0) {
      const type = ev.event.slice(sep + 1);
      const body = tryJson(ev.data);
      const message = isObject(body) && typeof body.message === 'string' ? body.message : '';
      return { failure: { errorClass: classifyAwsError(type, message) ?? 'server', reason: `${type} in stream${message ? `: ${message.slice(0, 200)}` : ''}` } };
    }
    const data = tryJson(ev.data);
    if (!isObject(data)) return { failure: { errorClass: 'stream_broken', reason: `malformed ${ev.event} event` } };
    switch (ev.event) {
      case 'messageStart':
        this.started = true;
        return {};
      case 'contentBlockDelta': {
        const text = isObject(data.delta) ? data.delta.text : undefined;
        if (typeof text === 'string' && text.length > 0 && !this.sawToken) {
          this.sawToken = true;
          return { firstToken: true };
        }
        return {};
      }
      case 'messageStop':
        if (typeof data.stopReason === 'string') this.stop = data.stopReason;
        return {};
      case 'metadata': {
        const u = isObject(data.usage) ? data.usage : undefined;
        const input = u ? count(u.inputTokens) : undefined;
        const output = u ? count(u.outputTokens) : undefined;
        if (input !== undefined && output !== undefined) this.usage = { inputTokens: input, outputTokens: output };
        return {};
      }
      default:
        return {};
    }
  }

  end(): ShapeVerdict {
    const u = this.usage ? { usage: this.usage } : {};
    if (!this.started) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without messageStart', ...u };
    if (this.stop === undefined) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without messageStop', ...u };
    const stop = endVerdict('stop_reason', this.stop, this.usage);
    if (!stop.ok) return stop;
    if (!this.usage) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without metadata (usage)' };
    return stop;
  }
}

/** The `bedrock-converse` kind. */
export const bedrockConverse: ProbeAdapter<ConverseRequest> = {
  kind: 'bedrock-converse',
  requiresApiKey: false,

  parseRequest(r: FieldReader, ctx: ParseContext): ConverseRequest | undefined {
    const thinkingBudget = r.number('thinking_budget', { integer: true, min: 1_024, max: 32_000 });
    const budget = thinkingBudget === undefined ? {} : { defaultFor: () => thinkingBudget + ANSWER_ROOM };
    const chat = parseChatRequest(r, ctx, '', ['region', 'thinking_budget'], budget);
    const region = r.string('region', { pattern: REGION, hint: 'must be an AWS region such as us-east-1' });
    if (chat && thinkingBudget !== undefined && chat.maxTokens <= thinkingBudget) {
      r.problem('thinking_budget', `must be below max_tokens (${chat.maxTokens}), which counts the thinking too`);
    }
    if (!chat) return undefined;
    const op = chat.stream ? 'converse-stream' : 'converse';
    return { ...chat, path: chat.path || `/model/${encodeURIComponent(chat.model)}/${op}`, region: region ?? ctx.key.region, thinkingBudget };
  },

  streamed: (req) => req.stream,
  streamContentType: 'application/vnd.amazon.eventstream',
  eventReader: () => new AwsEventReader(),
  estimateTokens: (req) => estimateChatTokens(req),
  acceptsStatus: (_req, status) => status >= 200 && status < 300,
  baseUrlProblem: (url) => (/\/model\//.test(url.pathname) ? 'must be the runtime endpoint (https://bedrock-runtime.{region}.amazonaws.com), without /model/…' : undefined),

  buildRequest(baseUrl: URL, req: ConverseRequest, apiKey: string | undefined): OutgoingRequest {
    const body: Record<string, unknown> = {
      messages: [{ role: 'user', content: [{ text: req.prompt }] }],
      inferenceConfig: { maxTokens: req.maxTokens },
      ...(req.system ? { system: [{ text: req.system }] } : {}),
      ...(req.thinkingBudget !== undefined ? { additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: req.thinkingBudget } } } : {}),
    };
    return {
      url: joinUrl(baseUrl, req.path),
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: req.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify(body),
    };
  },

  async sign(out: OutgoingRequest, req: ConverseRequest, credentials: AwsCredentials): Promise<OutgoingRequest> {
    const region = HOST.exec(out.url.hostname)?.[1] ?? req.region ?? credentials.region;
    if (!region) throw new Error('no signing region: the host names none; set request.region or AWS_REGION');
    const signer = new SignatureV4({
      credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}) },
      region,
      service: 'bedrock',
      sha256: NodeSha256,
    });
    const query: Record<string, string> = {};
    for (const [k, v] of out.url.searchParams) query[k] = v;
    const signed = await signer.sign({
      method: out.method,
      protocol: out.url.protocol,
      hostname: out.url.hostname,
      ...(out.url.port ? { port: Number(out.url.port) } : {}),
      path: out.url.pathname,
      query,
      headers: { ...out.headers, host: out.url.host },
      body: out.body ?? '',
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(signed.headers)) if (k.toLowerCase() !== 'host') headers[k] = String(v);
    return { ...out, headers };
  },

  checkBody(_req: ConverseRequest, text: string): ShapeVerdict {
    const body = tryJson(text);
    if (!isObject(body)) return malformed(text, 'body is not a JSON object');
    const u = isObject(body.usage) ? body.usage : undefined;
    const input = u ? count(u.inputTokens) : undefined;
    const output = u ? count(u.outputTokens) : undefined;
    const usage = input !== undefined && output !== undefined ? { inputTokens: input, outputTokens: output } : undefined;
    const message = isObject(body.output) && isObject(body.output.message) ? body.output.message : undefined;
    if (!message || !Array.isArray(message.content)) return malformed(body, 'no output.message.content', usage);
    if (typeof body.stopReason !== 'string') return malformed(body, 'no stopReason', usage);
    const stop = endVerdict('stop_reason', body.stopReason, usage);
    if (!stop.ok) return stop;
    if (!usage) return malformed(body, 'no usage', usage);
    return stop;
  },

  createStreamChecker: () => new ConverseStreamChecker(),
};
