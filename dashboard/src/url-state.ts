import { useCallback } from 'react';
import { hrefOf, navigate, useLocation } from './router.ts';
import { rangeFromParams, rangeToParams, type TimeRange } from './time-range.ts';

/** Every view's URL keeps the range; this merges changes into the current query. */
export function useUrlParams(): {
  path: string;
  params: URLSearchParams;
  range: TimeRange;
  setParams(changes: Record<string, string | undefined>, options?: { replace?: boolean }): void;
  setRange(range: TimeRange): void;
} {
  const { path, params } = useLocation();
  const range = rangeFromParams(params);
  const setParams = useCallback(
    (changes: Record<string, string | undefined>, options: { replace?: boolean } = {}) => {
      const next: Record<string, string | undefined> = Object.fromEntries(params.entries());
      Object.assign(next, changes);
      navigate(hrefOf(path, next), options);
    },
    [path, params],
  );
  const setRange = useCallback((next: TimeRange) => setParams(rangeToParams(next)), [setParams]);
  return { path, params, range, setParams, setRange };
}

/** A link to another view that carries the current range along. */
export function viewHref(path: string, range: TimeRange, extra: Record<string, string | undefined> = {}): string {
  return hrefOf(path, { ...extra, ...rangeToParams(range) });
}
