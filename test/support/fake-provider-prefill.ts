/**
 * Assistant prefill in the fake provider: an Anthropic request ending with an assistant
 * turn continues that turn, so the answer starts after the tokens the prefill holds.
 */
import { tokenText, type Dialect } from './fake-provider-bodies.ts';

/** The text of a trailing assistant turn (Anthropic prefill), if the request ends with one. */
export function prefillOf(d: Dialect, b: Record<string, unknown>): string | undefined {
  if (d !== 'anthropic' || !Array.isArray(b.messages)) return undefined;
  const last = b.messages[b.messages.length - 1] as { role?: unknown; content?: unknown } | undefined;
  return last?.role === 'assistant' && typeof last.content === 'string' && last.content.length > 0 ? last.content : undefined;
}

/** How many answer tokens a prefill already holds (0 when it is not a prefix of the answer). */
export function prefilledTokens(prefill: string | undefined, wanted: number): number {
  if (prefill === undefined) return 0;
  let text = '';
  for (let k = 1; k <= wanted; k++) {
    text += tokenText(k - 1);
    if (text.trimEnd() === prefill.trimEnd()) return k;
    if (text.length > prefill.length) break;
  }
  return 0;
}
