import { useSyncExternalStore } from 'react';

/** The current location as the dashboard sees it: a path and its query. */
export interface Location {
  path: string;
  params: URLSearchParams;
}

const listeners = new Set<() => void>();
let snapshot: { href: string; location: Location } | null = null;

function read(): Location {
  const href = window.location.pathname + window.location.search;
  if (snapshot?.href !== href) {
    snapshot = { href, location: { path: window.location.pathname, params: new URLSearchParams(window.location.search) } };
  }
  return snapshot.location;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onPop = () => listener();
  window.addEventListener('popstate', onPop);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', onPop);
  };
}

/** The location, re-rendering on navigation and on back/forward. */
export function useLocation(): Location {
  return useSyncExternalStore(subscribe, read);
}

/** Goes to `href` (same origin) without a reload; `replace` keeps history clean for filter edits. */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (href === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  for (const listener of listeners) listener();
}

/** Builds `path?query`, dropping empty values so URLs stay short enough to paste. */
export function hrefOf(path: string, params: Record<string, string | undefined | null>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) query.set(name, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
