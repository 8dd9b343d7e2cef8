/**
 * OTLP attributes → breakerbox's key and source, so that a model reported through
 * OpenTelemetry is the same key the breakerbox SDK reports for it (see docs/otlp.md).
 */
import { knownProviderOf, type BreakerKey, type TelemetryBatch } from '@breakerbox/protocol';
import type { Attributes } from './model.ts';

/** GenAI `gen_ai.provider.name` / older `gen_ai.system` values → the SDK's provider names. */
const PROVIDER_NAMES: Record<string, string> = {
  'azure.ai.openai': 'azure-openai',
  'az.ai.openai': 'azure-openai',
  mistral_ai: 'mistral',
  x_ai: 'xai',
  'gcp.gemini': 'google',
  'gcp.vertex_ai': 'google',
  'gcp.gen_ai': 'google',
  gemini: 'google',
  vertex_ai: 'google',
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * The provider: the SDK's name for `server.address` when it is a known provider host (an
 * OpenAI client pointed at api.together.xyz is `together`, as the SDK names it), else
 * `gen_ai.provider.name`, else the older `gen_ai.system`.
 */
function providerFrom(attrs: Attributes): string | undefined {
  const host = str(attrs['server.address']);
  const known = host ? knownProviderOf(host.toLowerCase()) : undefined;
  if (known) return known;
  const named = str(attrs['gen_ai.provider.name']) ?? str(attrs['gen_ai.system']);
  if (!named) return undefined;
  const lower = named.toLowerCase();
  return PROVIDER_NAMES[lower] ?? lower;
}

/** `gen_ai.operation.name` → the SDK's endpoint family (`chat` on Anthropic is its Messages API). */
function endpointFrom(attrs: Attributes, provider: string): string | undefined {
  const op = str(attrs['gen_ai.operation.name'])?.toLowerCase();
  if (!op) return undefined;
  if (op === 'chat') return provider === 'anthropic' ? 'messages' : 'chat';
  if (op === 'text_completion') return 'completions';
  return op;
}

/** Why a data point or record has no key. */
export type KeyProblem = 'no provider' | 'no operation' | 'no model';

/**
 * The key of a data point or log record: provider, endpoint family, model
 * (`gen_ai.request.model`, else `gen_ai.response.model`) and region (`breakerbox.region`,
 * else `cloud.region` on the point itself, never the resource's).
 */
export function keyFrom(attrs: Attributes): BreakerKey | KeyProblem {
  const provider = providerFrom(attrs);
  if (!provider) return 'no provider';
  const endpoint = endpointFrom(attrs, provider);
  if (!endpoint) return 'no operation';
  const model = str(attrs['gen_ai.request.model']) ?? str(attrs['gen_ai.response.model']);
  if (!model) return 'no model';
  const region = str(attrs['breakerbox.region']) ?? str(attrs['cloud.region']);
  const key: BreakerKey = { provider: provider.slice(0, 100), endpoint: endpoint.slice(0, 100), model: model.slice(0, 300) };
  if (region) key.region = region.slice(0, 100);
  return key;
}

/** The attributes `keyFrom` reads, in one order: equal values give the same key. */
const KEY_ATTRIBUTES = [
  'server.address', 'gen_ai.provider.name', 'gen_ai.system', 'gen_ai.operation.name', 'gen_ai.request.model',
  'gen_ai.response.model', 'breakerbox.region', 'cloud.region',
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
