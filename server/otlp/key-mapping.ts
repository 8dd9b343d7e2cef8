/**
 * OTLP attributes → breakerbox's key and source, so that a model reported through
 * OpenTelemetry is the same key the breakerbox SDK reports for it (see docs/otlp.md).
 */
import { knownProviderOf, nativeEndpointOf, type BreakerKey, type TelemetryBatch } from '@breakerbox/protocol';
import type { Attributes } from './model.ts';

/**
 * GenAI `gen_ai.provider.name` / older `gen_ai.system` values → the SDK's provider names
 * (protocol/provider-name.ts names them by host, so both report one key). The well-known
 * values are the OpenTelemetry GenAI registry's (`GEN_AI_PROVIDER_NAME_VALUE_*`, and the
 * older `GEN_AI_SYSTEM_VALUE_*`: `az.ai.*`, `gemini`, `vertex_ai`); `aws_bedrock` and
 * `bedrock` are what other instrumentations send.
 */
const PROVIDER_NAMES: Record<string, string> = {
  'azure.ai.openai': 'azure-openai',
  'az.ai.openai': 'azure-openai',
  // Azure AI Inference is served from `*.services.ai.azure.com`, which the SDK names azure-openai too.
  'azure.ai.inference': 'azure-openai',
  'az.ai.inference': 'azure-openai',
  mistral_ai: 'mistral',
  x_ai: 'xai',
  'gcp.gemini': 'google',
  gemini: 'google',
  // `gcp.gen_ai` is "any Google generative AI endpoint": the Gemini API unless a Vertex host says otherwise.
  'gcp.gen_ai': 'google',
  // Vertex AI is its own provider (its own quotas, regions and outages), as the SDK names `*-aiplatform.googleapis.com`.
  'gcp.vertex_ai': 'vertex-ai',
  vertex_ai: 'vertex-ai',
  'aws.bedrock': 'bedrock',
  aws_bedrock: 'bedrock',
  bedrock: 'bedrock',
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

const named = (value: string): string => {
  const lower = value.toLowerCase();
  return PROVIDER_NAMES[lower] ?? lower;
};

/**
 * The provider, first found of (docs/otlp.md, "Provider"):
 * 1. `server.address` (a host, host:port or URL) when it is a known provider host: an OpenAI
 *    client pointed at api.together.xyz is `together`, as the SDK names it;
 * 2. `gen_ai.provider.name`; 3. the older `gen_ai.system`;
 * 4. OpenInference's `llm.provider`; 5. its `llm.system`.
 */
export function providerFrom(attrs: Attributes): string | undefined {
  const address = str(attrs['server.address']);
  const known = address ? knownProviderOf(address) : undefined;
  if (known) return known;
  const name = str(attrs['gen_ai.provider.name']) ?? str(attrs['gen_ai.system']) ?? str(attrs['llm.provider']) ?? str(attrs['llm.system']);
  if (!name) return undefined;
  // The AI SDK's older spans name the provider by its client id: `openai.chat`, `anthropic.messages`.
  return named(aiSdkSpan(attrs) ? (name.split('.')[0] ?? name) : name);
}

/** An AI SDK 4–6 span (`ai.*` attributes): its `ai.operationId` says what it is. */
const aiSdkSpan = (attrs: Attributes): boolean => typeof attrs['ai.operationId'] === 'string';

/**
 * The operation of an AI SDK 4–6 provider call, which has no `gen_ai.operation.name`:
 * `….doEmbed` is embeddings; `….doGenerate` / `….doStream` is the client id's API
 * (`openai.responses` the Responses API, else chat).
 */
function aiSdkOperation(attrs: Attributes): string | undefined {
  const id = str(attrs['ai.operationId']);
  if (!id) return undefined;
  if (id.endsWith('.doEmbed')) return 'embeddings';
  if (!/\.do(Generate|Stream)$/.test(id)) return undefined;
  return str(attrs['gen_ai.system'])?.endsWith('.responses') ? 'responses' : 'chat';
}

/**
 * `gen_ai.operation.name` → the SDK's endpoint family (`chat` on Anthropic is its Messages
 * API); an OpenInference span has none, so its span kind stands in (`LLM` → chat,
 * `EMBEDDING` → embeddings).
 */
function endpointFrom(attrs: Attributes, provider: string): string | undefined {
  let op = str(attrs['gen_ai.operation.name'])?.toLowerCase() ?? aiSdkOperation(attrs);
  if (!op) {
    // OpenLLMetry's older attribute (LiteLLM's callback uses its names): chat, completion, embedding.
    const type = str(attrs['llm.request.type'])?.toLowerCase();
    op = type === 'completion' ? 'text_completion' : type === 'embedding' ? 'embeddings' : type;
  }
  if (!op) {
    const kind = str(attrs['openinference.span.kind'])?.toUpperCase();
    op = kind === 'LLM' ? 'chat' : kind === 'EMBEDDING' ? 'embeddings' : undefined;
  }
  if (!op) return undefined;
  const native = nativeEndpointOf(provider, op);
  if (native) return native;
  if (op === 'text_completion') return 'completions';
  return op;
}

/** The `model` of OpenInference's `llm.invocation_parameters` (a JSON object of the request's parameters). */
function invokedModel(attrs: Attributes): string | undefined {
  const params = str(attrs['llm.invocation_parameters']);
  if (!params || !params.includes('"model"')) return undefined;
  try {
    const parsed = JSON.parse(params) as unknown;
    return typeof parsed === 'object' && parsed !== null ? str((parsed as Record<string, unknown>).model) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The model as the caller asked for it: `gen_ai.request.model`, else the `model` of
 * OpenInference's `llm.invocation_parameters`, else `llm.model_name` (which OpenInference
 * overwrites with the dated response model on success), else `gen_ai.response.model`.
 */
export function modelFrom(attrs: Attributes): string | undefined {
  return str(attrs['gen_ai.request.model']) ?? invokedModel(attrs) ?? str(attrs['llm.model_name']) ?? str(attrs['gen_ai.response.model']);
}

/** Why a data point or record has no key. */
export type KeyProblem = 'no provider' | 'no operation' | 'no model';

/**
 * The key of a data point, span or log record: provider (`providerFrom`), endpoint family,
 * model (`modelFrom`) and region (`breakerbox.region`, else `cloud.region` on the point
 * itself, never the resource's).
 */
export function keyFrom(attrs: Attributes): BreakerKey | KeyProblem {
  const provider = providerFrom(attrs);
  if (!provider) return 'no provider';
  const endpoint = endpointFrom(attrs, provider);
  if (!endpoint) return 'no operation';
  const model = modelFrom(attrs);
  if (!model) return 'no model';
  const region = str(attrs['breakerbox.region']) ?? str(attrs['cloud.region']);
  const key: BreakerKey = { provider: provider.slice(0, 100), endpoint: endpoint.slice(0, 100), model: model.slice(0, 300) };
  if (region) key.region = region.slice(0, 100);
  return key;
}

/** The attributes `keyFrom` reads, in one order: equal values give the same key. */
const KEY_ATTRIBUTES = [
  'server.address', 'gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system', 'gen_ai.operation.name', 'llm.request.type',
  'openinference.span.kind', 'ai.operationId', 'gen_ai.request.model', 'llm.invocation_parameters', 'llm.model_name', 'gen_ai.response.model',
  'breakerbox.region', 'cloud.region',
] as const;

/**
 * `keyFrom` for the many points of one request: points that agree on the key attributes get
 * the same key object (so grouping by `keyId` hits its cache). Lives for one request only.
 */
export function keyInterner(): (attrs: Attributes) => BreakerKey | KeyProblem {
  const seen = new Map<string, BreakerKey | KeyProblem>();
  return (attrs) => {
    let id = '';
    for (const name of KEY_ATTRIBUTES) id += `${attrs[name] ?? ''}\u0001`;
    let key = seen.get(id);
    if (key === undefined) seen.set(id, (key = keyFrom(attrs)));
    return key;
  };
}

/**
 * The source of a resource: `service.name`, and as instance `service.instance.id`, else
 * `k8s.pod.name`, else `host.name` with `process.pid`, else `default`. `sdk` names the
 * OpenTelemetry SDK (`otel-python/1.39.0`).
 */
export function sourceFrom(resource: Attributes): TelemetryBatch['source'] {
  const service = str(resource['service.name']) ?? 'unknown_service';
  const host = str(resource['host.name']);
  const pid = resource['process.pid'];
  const instance =
    str(resource['service.instance.id']) ??
    str(resource['k8s.pod.name']) ??
    (host ? (pid !== undefined ? `${host}:${pid}` : host) : 'default');
  const language = str(resource['telemetry.sdk.language']) ?? 'unknown';
  const version = str(resource['telemetry.sdk.version']);
  return { service: service.slice(0, 200), instance: instance.slice(0, 200), sdk: `otel-${language}${version ? `/${version}` : ''}`.slice(0, 200) };
}
