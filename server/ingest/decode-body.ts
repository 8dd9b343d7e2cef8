import { gunzipSync } from 'node:zlib';
import { BreakerboxError } from '../errors.ts';

/**
 * Turns a raw request body into parsed JSON. A gzip body is inflated with a hard cap on
 * its output (`maxOutputLength`), so a small bomb that would inflate to gigabytes stops
 * at the limit and answers 413 instead of exhausting memory.
 */
export function decodeJsonBody(raw: Buffer, contentEncoding: string | undefined, limitBytes: number): unknown {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  let text: Buffer;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    try {
      text = gunzipSync(raw, { maxOutputLength: limitBytes });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
        throw new BreakerboxError('BB_ERR_INGEST_TOO_LARGE', `the body inflates to more than ${limitBytes} bytes`);
      }
      throw new BreakerboxError('BB_ERR_INGEST_BAD_ENCODING', 'the body is not valid gzip', { cause: err });
    }
  } else if (encoding === 'identity' || encoding === '') {
    text = raw;
  } else {
    throw new BreakerboxError('BB_ERR_INGEST_UNSUPPORTED_ENCODING', `Content-Encoding "${encoding}" is not supported (use gzip or none)`);
  }
  try {
    return JSON.parse(text.toString('utf8'));
  } catch (err) {
    throw new BreakerboxError('BB_ERR_INGEST_MALFORMED_JSON', `the body is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}
