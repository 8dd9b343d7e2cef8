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

const sameModel = (a: BreakerKey, b: BreakerKey) => a.endpoint === b.endpoint && a.model.toLowerCase() === b.model.toLowerCase();

/**
 * Probed keys of the same model and endpoint under another provider name or region: the
 * join the user probably meant. Sorted by provider, region.
 */
export function nearMatches(key: BreakerKey, keys: Map<number, KeyInfo>, probed: Set<number>): BreakerKey[] {
  const out: BreakerKey[] = [];
  for (const id of probed) {
    const other = keys.get(id)?.key;
    if (!other || !sameModel(key, other)) continue;
    if (other.provider === key.provider && (other.region ?? '') === (key.region ?? '')) continue;
    out.push(other);
  }
  return out.sort((a, b) => a.provider.localeCompare(b.provider) || (a.region ?? '').localeCompare(b.region ?? ''));
}

/** "vllm/chat/meta-llama/Llama-3.1-8B-Instruct (us-east)". */
export const keyName = (k: BreakerKey): string => `${k.provider}/${k.endpoint}/${k.model}${k.region ? ` (${k.region})` : ''}`;
