import { BreakerboxError } from '../errors.ts';
import type { TimeRange } from '../verdicts/window.ts';

/** Where a page starts, and the window it is pinned to (a cursor keeps the first page's window). */
export interface PageRequest {
  limit: number;
  offset: number;
  range: TimeRange | null;
}

const invalid = (name: string, message: string): never => {
  throw new BreakerboxError('BB_ERR_QUERY_INVALID', message, { path: `/querystring/${name}` });
};

/** Reads `limit` (1..max, default) and an opaque `cursor` from a query. */
export function pageRequest(query: { limit?: string; cursor?: string }, options: { defaultLimit: number; maxLimit: number }): PageRequest {
  const limit = query.limit === undefined || query.limit === '' ? options.defaultLimit : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > options.maxLimit) invalid('limit', `limit must be 1..${options.maxLimit}`);
  if (query.cursor === undefined || query.cursor === '') return { limit, offset: 0, range: null };
  const parts = Buffer.from(query.cursor, 'base64url').toString('utf8').split('.');
  const [from, to, offset] = parts.map(Number);
  if (parts.length !== 3 || ![from, to, offset].every((n) => Number.isSafeInteger(n) && n! >= 0) || from! >= to!) {
    invalid('cursor', 'cursor is not a next_cursor this API gave');
  }
  return { limit, offset: offset!, range: { from: from!, to: to! } };
}

/**
 * One page of an ordered list, and the cursor of the next (null on the last page). The
 * cursor pins the window, so paging through a "last 15 minutes" list reads one window.
 */
export function page<T>(all: T[], request: PageRequest, range: TimeRange): { items: T[]; next_cursor: string | null; total: number } {
  return pageOf(all.slice(request.offset, request.offset + request.limit), all.length, request, range);
}

/** A page already cut from a list of `total` rows (`items` = rows `[offset, offset + limit)`), with its next cursor. */
export function pageOf<T>(items: T[], total: number, request: PageRequest, range: TimeRange): { items: T[]; next_cursor: string | null; total: number } {
  const end = request.offset + request.limit;
  const next = end < total ? Buffer.from(`${range.from}.${range.to}.${end}`).toString('base64url') : null;
  return { items, next_cursor: next, total };
}
