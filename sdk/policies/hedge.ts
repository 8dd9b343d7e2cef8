/**
 * Hedging: when the first attempt has not answered after `delayMs`, a second one is sent;
 * the first success wins and the other is aborted. Off by default; the key policy only
 * hedges while its breaker is closed and its error share is low, and each hedge takes a
 * retry from the shared budget.
 */
import type { Clock } from '../clock.ts';

/** Runs `primary`, and `secondary` too if `primary` is still pending after `delayMs`. */
export function runHedged<T>(
  primary: (signal: AbortSignal) => Promise<T>,
  secondary: (signal: AbortSignal) => Promise<T>,
  delayMs: number,
  clock: Clock,
  parent?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const a = new AbortController();
    const b = new AbortController();
    const onParent = () => {
      a.abort(parent!.reason);
      b.abort(parent!.reason);
    };
    parent?.addEventListener('abort', onParent, { once: true });
    let settled = false;
    let pending = 1;
    let firstError: unknown;
    let hedgeStarted = false;
    const finish = () => {
      settled = true;
      clock.clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    };
    const win = (loser: AbortController) => (v: T) => {
      if (settled) return;
      finish();
      loser.abort(new Error('hedge lost'));
      resolve(v);
    };
    const lose = (err: unknown) => {
      if (settled) return;
      firstError ??= err;
      if (--pending > 0) return;
      finish();
      reject(firstError);
    };
    const timer = clock.setTimeout(() => {
      if (settled) return;
      hedgeStarted = true;
      pending++;
      secondary(b.signal).then(win(a), lose);
    }, delayMs);
    primary(a.signal).then(win(b), (err: unknown) => {
      // A primary that fails before the hedge fires fails the call: hedging is for slowness, not errors.
      if (!hedgeStarted && !settled) {
        finish();
        reject(err);
        return;
      }
      lose(err);
    });
  });
}
