import { gunzipSync } from 'node:zlib';
import { BreakerboxError } from '../errors.ts';

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

/** Turns a raw request body into parsed JSON, inflating it first (see `inflateBody`). */
export function decodeJsonBody(raw: Buffer, contentEncoding: string | undefined, limitBytes: number): unknown {
  return parseJson(inflateBody(raw, contentEncoding, limitBytes));
}

/** Parses an inflated body as JSON; a 400 `BB_ERR_INGEST_MALFORMED_JSON` when it is not. */
export function parseJson(text: Buffer): unknown {
  try {
    return JSON.parse(text.toString('utf8'));
  } catch (err) {
    throw new BreakerboxError('BB_ERR_INGEST_MALFORMED_JSON', `the body is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}
