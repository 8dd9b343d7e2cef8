import { ERROR_CLASSES, type BreakerKey } from '@breakerbox/protocol';
import { classList } from '../../verdicts/text.ts';
import { keyName } from '../../verdicts/key-join.ts';
import { num } from '../../verdicts/text.ts';
import type { KeyAnalysis } from '../../verdicts/analyse.ts';
import type { RuleContext } from './context.ts';

/** One fallback of a primary's chain, as its own windows show it over the rule's window. */
export interface FallbackLevel {
  key: BreakerKey;
  /** Its place in the chain: 1 = the first fallback after the primary. */
  position: number;
  calls: number;
  failed: number;
  /** Calls its own breaker refused (open): the chain moved past it. */
  shortCircuited: number;
  /** "server 59" */
  classes: string;
}

const isKey = (k: unknown): k is BreakerKey =>
  typeof k === 'object' && k !== null && typeof (k as BreakerKey).provider === 'string' && typeof (k as BreakerKey).endpoint === 'string' && typeof (k as BreakerKey).model === 'string';

/**
 * Which fallbacks of a primary failed. A `tasks` event counts fallback invocations and
 * failures per chain but names no level (protocol/types.ts `TasksEvent`); the chain itself is
 * in the primary's latest `config` event (`fallbacks`, in order), and each fallback is a key
 * with windows of its own: those with failed calls in the window, or calls their own open
 * breaker refused, are the failing levels.
 * Empty when no config event names the chain or no fallback failed a call.
 */
export async function failingFallbacks(ctx: RuleContext, primary: KeyAnalysis, analyses: Map<number, KeyAnalysis>): Promise<FallbackLevel[]> {
  const config = await ctx.storage.events.latestConfig(primary.info.id);
  const chain = (config?.fallbacks ?? []).filter(isKey);
  if (chain.length === 0) return [];
  const byName = new Map([...analyses.values()].map((a) => [keyName(a.info.key), a]));
  const out: FallbackLevel[] = [];
  chain.forEach((key, i) => {
    const a = byName.get(keyName(key));
    if (!a || a.clients.failed + a.clients.short_circuited === 0) return;
    const c = a.clients;
    out.push({ key: a.info.key, position: i + 1, calls: c.calls, failed: c.failed, shortCircuited: c.short_circuited, classes: classList(c.errors, ERROR_CLASSES) });
  });
  return out;
}

/** "fallback #1 openai/chat/gpt-4o-mini failed 59 of 60 calls (server 59)", "… open, refused 90 calls". */
export function fallbackText(f: FallbackLevel): string {
  const parts: string[] = [];
  if (f.failed > 0) parts.push(`failed ${num(f.failed)} of ${num(f.calls)} calls (${f.classes || 'unclassified'})`);
  if (f.shortCircuited > 0) parts.push(`open, refused ${num(f.shortCircuited)} calls`);
  return `fallback #${f.position} ${keyName(f.key)} ${parts.join(' and ')}`;
}
