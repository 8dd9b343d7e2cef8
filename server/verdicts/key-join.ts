import type { BreakerKey } from '@breakerbox/protocol';
import type { KeyInfo } from '../storage/storage.ts';

/** The provider name a key is joined under: its alias when configured, else its own. */
export const canonicalProvider = (provider: string, aliases: Record<string, string>): string => aliases[provider] ?? provider;

const joinId = (k: BreakerKey, aliases: Record<string, string>) =>
  JSON.stringify([canonicalProvider(k.provider, aliases), k.endpoint, k.model, k.region ?? '']);

/**
 * Groups keys that are the same dependency under different provider names
 * (`verdicts.provider_aliases`): the SDK names an unknown host `host:port`, the prober's
 * config says `vllm`. Returns, per key id, the ids of its group (itself included).
 */
export function joinGroups(keys: Map<number, KeyInfo>, aliases: Record<string, string>): Map<number, number[]> {
  const byJoin = new Map<string, number[]>();
  for (const [id, info] of keys) {
    const j = joinId(info.key, aliases);
    const list = byJoin.get(j);
    if (list) list.push(id);
    else byJoin.set(j, [id]);
  }
  const out = new Map<number, number[]>();
  for (const list of byJoin.values()) for (const id of list) out.set(id, list);
  return out;
}

const modelId = (k: BreakerKey) => `${k.endpoint}\u0000${k.model.toLowerCase()}`;

/** Finds, for a key, the probed keys of the same model and endpoint; built once per pass. */
export type NearMatches = (key: BreakerKey) => BreakerKey[];

/**
 * Probed keys of the same model and endpoint under another provider name or region: the
 * join the user probably meant. Sorted by provider, region. The probed keys are indexed by
 * endpoint and model once, so a pass over many unprobed keys does not compare each with every
 * probed key (50,000 keys × 2,500 probed took 15 s of a pass that way).
 */
export function nearMatches(keys: Map<number, KeyInfo>, probed: Set<number>): NearMatches {
  const byModel = new Map<string, BreakerKey[]>();
  for (const id of probed) {
    const other = keys.get(id)?.key;
    if (!other) continue;
    const list = byModel.get(modelId(other));
    if (list) list.push(other);
    else byModel.set(modelId(other), [other]);
  }
  return (key) => {
    const same = byModel.get(modelId(key));
    if (!same) return [];
    return same
      .filter((other) => other.provider !== key.provider || (other.region ?? '') !== (key.region ?? ''))
      .sort((a, b) => a.provider.localeCompare(b.provider) || (a.region ?? '').localeCompare(b.region ?? ''));
  };
}

/** "vllm/chat/meta-llama/Llama-3.1-8B-Instruct (us-east)". */
export const keyName = (k: BreakerKey): string => `${k.provider}/${k.endpoint}/${k.model}${k.region ? ` (${k.region})` : ''}`;
