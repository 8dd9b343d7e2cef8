/** How figures read in evidence and summaries: one definition for every sentence. */
import type { ErrorClass } from '@breakerbox/protocol';

/** A share as a percentage an engineer reads: "41%", "0.4%", "<0.1%". */
export function pct(x: number | null): string {
  if (x === null) return 'n/a';
  const v = x * 100;
  if (v > 0 && v < 0.1) return '<0.1%';
  return `${v >= 10 || v === 0 ? Math.round(v) : Number(v.toFixed(1))}%`;
}

/** A count with thousands separators. */
export const num = (n: number): string => Math.round(n).toLocaleString('en-US');

/** "a", "a and b", "a, b and c". */
export function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}


/** "policy 189, server 3": the classes of `classes` that occurred, most first. */
export function classList(errors: Record<ErrorClass, number>, classes: readonly ErrorClass[]): string {
  return classes
    .filter((c) => errors[c] > 0)
    .sort((a, b) => errors[b] - errors[a])
    .map((c) => `${c} ${num(errors[c])}`)
    .join(', ');
}
