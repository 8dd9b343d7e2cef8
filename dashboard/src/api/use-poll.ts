import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiFailure } from './client.ts';

/** What a polled resource looks like to a view. */
export interface Polled<T> {
  /** The last good answer (kept while later refreshes fail, and marked stale by `error`). */
  data: T | undefined;
  /** The last refresh's failure, cleared by the next success. */
  error: ApiFailure | undefined;
  /** When `data` arrived. */
  updatedAt: number | undefined;
  /** When refreshes started failing, for "not answering since 03:12". */
  failingSince: number | undefined;
  /** True until the first answer or failure. */
  loading: boolean;
  /** Fetch now (after a change the user made). */
  refresh(): void;
}

/** Refreshes at most this often: the "at most every 10 s". */
export const REFRESH_MS = 10_000;

/**
 * Fetches `load` now and every `intervalMs` after the previous answer, restarting when
 * `deps` change. Keeps the last data through failures so the view can show it as stale
 * beside the failure, rather than freezing silently or blanking. Pauses while the tab is
 * hidden and refreshes on return.
 */
export function usePoll<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[], intervalMs = REFRESH_MS): Polled<T> {
  const [state, setState] = useState<Omit<Polled<T>, 'refresh'>>({
    data: undefined, error: undefined, updatedAt: undefined, failingSince: undefined, loading: true,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    // New inputs (another range or key): old data would mislead, so start over.
    setState({ data: undefined, error: undefined, updatedAt: undefined, failingSince: undefined, loading: true });
  }, deps); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const run = async () => {
      if (document.visibilityState === 'hidden') return;
      try {
        const data = await loadRef.current(controller.signal);
        if (stopped) return;
        setState({ data, error: undefined, updatedAt: Date.now(), failingSince: undefined, loading: false });
      } catch (err) {
        if (stopped) return;
        const failure = err instanceof ApiFailure ? err : new ApiFailure('server', 0, (err as Error).message);
        setState((s) => ({ ...s, error: failure, failingSince: s.failingSince ?? Date.now(), loading: false }));
      }
      if (!stopped) timer = setTimeout(run, intervalMs);
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible' && !stopped) {
        clearTimeout(timer);
        void run();
      }
    };
    document.addEventListener('visibilitychange', onVisible);
    void run();
    return () => {
      stopped = true;
      controller.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [...deps, tick, intervalMs]); // eslint-disable-line react-hooks/exhaustive-deps

  const refresh = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, refresh };
}
