/**
 * Amazon Bedrock runtime: `…/model/{modelId}/converse`, `/converse-stream` (AWS
 * event-stream frames), `/invoke` and `/invoke-with-response-stream`. The model is the
 * URL-encoded id in the path (`anthropic.claude-3-5-sonnet-20240620-v1%3A0`, an inference
 * profile `us.anthropic.…`, an ARN); the region is the host's
 * (`bedrock-runtime.{region}.amazonaws.com`). Families: `converse` and `invoke` (an invoke
 * body is the model's own: Anthropic messages for `anthropic.*` models, read as such).
 *
 * A fallback names another model (another path) or base URL (another host or region), so
 * its request no longer matches the caller's SigV4 signature: `sign` signs it again with
 * the fetch option `signer`, and a route that would need one is refused without it
 * (`bedrockSignerProblem`, at construction).
 */
import type { CallFacts } from '../../call-types.ts';
import { jsonFacts } from '../json-answer.ts';
import { converseDialect } from '../../streams/dialect-converse.ts';
import { bedrockInvokeDialect } from '../../streams/dialect-bedrock-invoke.ts';
import { awsEventStreamFraming, isAwsEventStreamType } from '../../streams/stream-framing.ts';
import { resign, type RequestSigner } from '../request-signer.ts';
import type { FetchRoute } from '../fetch-options.ts';
import { rebase, withApiKey, type ModelApi, type ModelCall, type OutgoingRequest } from './model-api.ts';

const PATH = /\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;
const HOST = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;
/** Bedrock model ids: `provider.model…`, optionally behind a cross-region profile prefix, or an ARN. */
const MODEL_ID = /^(?:arn:aws[a-z-]*:bedrock:|(?:(?:us|eu|apac|us-gov|global|jp|au|ca)\.)?(?:amazon|anthropic|ai21|cohere|meta|mistral|deepseek|writer|qwen|openai|twelvelabs|stability|luma|moonshot|minimax|nvidia|google)\.[a-z0-9])/;

/** The region of a Bedrock runtime host, or undefined for any other host. */
export function bedrockRegionOf(url: URL): string | undefined {
  return HOST.exec(url.hostname)?.[1];
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** Usage, stop reason and served model of a Converse answer, or of an invoke answer in the model's own shape. */
function bedrockJsonFacts(body: unknown, upstreamRequestId: string | undefined): CallFacts {
  const b = (body ?? {}) as Record<string, unknown>;
  if (!('output' in b) && !('stopReason' in b)) return jsonFacts(body, upstreamRequestId); // invoke: Anthropic messages and the like
  const f: CallFacts = { upstreamRequestId };
  const u = (b.usage ?? {}) as Record<string, unknown>;
  f.inputTokens = num(u.inputTokens);
  f.outputTokens = num(u.outputTokens);
  const cached = num(u.cacheReadInputTokens);
  if (cached !== undefined) f.cacheHit = cached > 0;
  if (typeof b.stopReason === 'string') f.finishReason = b.stopReason;
  return f;
}

/** The Bedrock runtime API. */
export const bedrockApi: ModelApi = {
  id: 'bedrock',
  read(url, _body): ModelCall | undefined {
    const m = PATH.exec(url.pathname);
    if (!m) return undefined;
    const op = m[2]!;
    const call: ModelCall = {
      api: bedrockApi,
      family: op.startsWith('converse') ? 'converse' : 'invoke',
      model: decodeURIComponent(m[1]!),
      stream: op === 'converse-stream' || op === 'invoke-with-response-stream',
      at: m.index,
      provider: 'bedrock',
    };
    const region = bedrockRegionOf(url);
    if (region) call.region = region;
    return call;
  },
  retarget(call, req, to) {
    let url = to.baseURL ? rebase(req.url, to.baseURL, call.at) : req.url;
    if (to.model) {
      url = new URL(url);
      url.pathname = url.pathname.replace(PATH, (_all, _m: string, op: string) => `/model/${encodeURIComponent(to.model!)}/${op}`);
    }
    // A Bedrock API key is a bearer token (AWS_BEARER_TOKEN_BEDROCK).
    return { url, headers: to.apiKey ? withApiKey(req.headers, to.apiKey, 'authorization') : req.headers, body: req.body };
  },
  dialect: (family) => (family === 'invoke' ? bedrockInvokeDialect : converseDialect),
  streamFraming: (contentType) => (isAwsEventStreamType(contentType) ? awsEventStreamFraming : undefined),
  jsonFacts: bedrockJsonFacts,
  jsonFailure: () => undefined,
  maxOutputTokens: (body) => num((body.inferenceConfig as Record<string, unknown> | undefined)?.maxTokens) ?? num(body.max_tokens) ?? num(body.max_gen_len),
  sign: (req: OutgoingRequest, bodyText: string, signer: RequestSigner) => resign(req, bodyText, signer, bedrockRegionOf(req.url)),
};

/** Whether a model id is a Bedrock one (`anthropic.claude-…-v1:0`, `us.amazon.nova-pro-v1:0`, an ARN). */
export function isBedrockModelId(model: string): boolean {
  return MODEL_ID.test(model);
}

/**
 * Why a fallback of a Bedrock model cannot be sent without a signer (it changes the model
 * or the base URL, so the caller's SigV4 signature no longer matches), or undefined. A route
 * with its own `apiKey` (a Bedrock API key) needs no signature. `signed`: the request is
 * known to be SigV4-signed (whatever its model id looks like).
 */
export function bedrockSignerProblem(primaryBaseURL: string | undefined, model: string, route: FetchRoute, signed = false): string | undefined {
  if (route.apiKey) return undefined;
  const bedrock = signed || isBedrockModelId(model) || (primaryBaseURL !== undefined && bedrockRegionOf(new URL(primaryBaseURL)) !== undefined)
    || (route.baseURL !== undefined && bedrockRegionOf(new URL(route.baseURL)) !== undefined);
  if (!bedrock) return undefined;
  if (route.model && route.model !== model) return `fallback of ${model} to model ${route.model}`;
  if (route.baseURL) return `fallback of ${model} to ${route.baseURL}`;
  return undefined;
}
