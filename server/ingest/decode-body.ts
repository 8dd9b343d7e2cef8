import { gunzipSync } from 'node:zlib';
import { BreakerboxError } from '../errors.ts';
import { illFormedStringPath, mayHoldSurrogates } from './well-formed.ts';

/**
 * Inflates a raw request body by its `Content-Encoding`. A gzip body is inflated with a
 * hard cap on its output (`maxOutputLength`), so a small bomb that would inflate to
 * gigabytes stops at the limit and answers 413 instead of exhausting memory.
 */
export function inflateBody(raw: Buffer, contentEncoding: string | undefined, limitBytes: number): Buffer {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    try {
      return gunzipSync(raw, { maxOutputLength: limitBytes });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
        throw new BreakerboxError('BB_ERR_INGEST_TOO_LARGE', `the body inflates to more than ${limitBytes} bytes`);
      }
      throw new BreakerboxError('BB_ERR_INGEST_BAD_ENCODING', 'the body is not valid gzip', { cause: err });
    }
  }
  if (encoding === 'identity' || encoding === '') return raw;
  throw new BreakerboxError('BB_ERR_INGEST_UNSUPPORTED_ENCODING', `Content-Encoding "${encoding}" is not supported (use gzip or none)`);
}

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

/** The JSON parser of every ingest route (protocol v1 and OTLP/JSON): `parseJsonBody`. */
export const parseJson = parseJsonBody;
