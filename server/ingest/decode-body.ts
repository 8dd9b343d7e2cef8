import { BreakerboxError } from '../errors.ts';
import { illFormedStringPath, mayHoldSurrogates } from './well-formed.ts';

/**
 * Turns a fully read (and already inflated) body into parsed JSON. A body holding a string
 * that is not well-formed UTF-16 (a lone surrogate sent as a `\uD800` escape) is refused
 * with the path of that string: SQLite would store it as invalid UTF-8, unreadable after.
 */
export function parseJsonBody(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new BreakerboxError('BB_ERR_INGEST_MALFORMED_JSON', `the body is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (mayHoldSurrogates(text)) {
    const path = illFormedStringPath(parsed);
    if (path !== null) throw new BreakerboxError('BB_ERR_INGEST_INVALID', 'strings must be well-formed UTF-16 (a lone surrogate was sent)', { path });
  }
  return parsed;
}
