/**
 * Breaker keys: canonical ids for maps and labels. Model ids contain `/`, `:` and `@`,
 * so the id uses a separator that cannot appear in any of the parts.
 */
import type { BreakerKey } from './types.ts';

const ids = new WeakMap<BreakerKey, string>();

/** The canonical id of a key; cached per key object, so repeated calls do not allocate. */
export function keyId(key: BreakerKey): string {
  let id = ids.get(key);
  if (id === undefined) {
    id = `${key.provider}\u0001${key.endpoint}\u0001${key.model}\u0001${key.region ?? ''}`;
    ids.set(key, id);
  }
  return id;
}

/** A plain copy of a key, without `region` when it is unset (the wire shape). */
export function cleanKey(key: BreakerKey): BreakerKey {
  return key.region ? { provider: key.provider, endpoint: key.endpoint, model: key.model, region: key.region } : { provider: key.provider, endpoint: key.endpoint, model: key.model };
}

/** `provider/endpoint/model@region`, for messages. */
export function keyLabel(key: BreakerKey): string {
  return `${key.provider}/${key.endpoint}/${key.model}${key.region ? ` (${key.region})` : ''}`;
}
