import type { Readable } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import { BreakerboxError } from '../errors.ts';

/**
 * Body bytes held by all requests still being received, against one ceiling. Many stalled
 * uploads together cannot hold more than `max`; past it a new chunk answers 503.
 */
export interface BodyBudget {
  readonly max: number;
  held: number;
}

/** Creates a budget for `max` bytes held at once. */
export const createBodyBudget = (max: number): BodyBudget => ({ max, held: 0 });

/**
 * Collects chunks by copying them into one buffer that grows by doubling. A slow sender's
 * many small chunks are released as they arrive, so a stalled body holds about what it
 * sent, never a list of thousands of tiny buffers.
 */
class Collector {
  private buf = Buffer.allocUnsafe(0);
  length = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const need = this.length + chunk.length;
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.min(Math.max(need, this.buf.length * 2, 16 * 1024), Math.max(need, this.limit)));
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    chunk.copy(this.buf, this.length);
    this.length = need;
  }

  get held(): number {
    return this.buf.length;
  }

  result(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/** What `readBody` needs to know about the request. */
export interface ReadBodyOptions {
  /** Most bytes accepted, on the wire and after inflation. */
  limit: number;
  contentEncoding: string | undefined;
  contentLength: string | undefined;
  budget: BodyBudget;
}

// A refused body is not read further, so the connection is closed after the answer instead of
// waiting (kept alive) for the rest of it.
const tooLarge = (limit: number, inflated: boolean) =>
  new BreakerboxError('BB_ERR_INGEST_TOO_LARGE', inflated ? `the body inflates to more than ${limit} bytes` : `the body is over ${limit} bytes`, {
    headers: { connection: 'close' },
  });

/**
 * Reads a request body as it streams in: counted against `limit` (a declared
 * Content-Length over it is refused before a byte is read), inflated chunk by chunk when
 * gzip (so a bomb stops at the limit), and held against the shared budget until done.
 */
export function readBody(stream: Readable, options: ReadBodyOptions): Promise<Buffer> {
  const { limit, budget } = options;
  const encoding = (options.contentEncoding ?? 'identity').trim().toLowerCase();
  const gzip = encoding === 'gzip' || encoding === 'x-gzip';
  if (!gzip && encoding !== 'identity' && encoding !== '') {
    return Promise.reject(
      new BreakerboxError('BB_ERR_INGEST_UNSUPPORTED_ENCODING', `Content-Encoding "${encoding}" is not supported (use gzip or none)`),
    );
  }
  const declared = options.contentLength === undefined ? NaN : Number(options.contentLength);
  if (declared > limit) return Promise.reject(tooLarge(limit, false));

  return new Promise<Buffer>((resolve, reject) => {
    const out = new Collector(limit);
    let received = 0;
    let reserved = 0;
    let settled = false;
    let ended = false;
    let inflater: Gunzip | null = null;

    const reserve = () => {
      // What this request holds: its output buffer, plus compressed bytes in flight.
      const now = out.held;
      budget.held += now - reserved;
      reserved = now;
    };
    const finish = (err: Error | null, body?: Buffer) => {
      if (settled) return;
      settled = true;
      budget.held -= reserved;
      reserved = 0;
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      inflater?.destroy();
      if (err) {
        // Stop reading: the rest of an over-limit body is discarded, not buffered.
        stream.resume();
        reject(err);
      } else resolve(body!);
    };
    const take = (chunk: Buffer, inflated: boolean) => {
      if (out.length + chunk.length > limit) return finish(tooLarge(limit, inflated));
      if (budget.held + chunk.length > budget.max) {
        return finish(
          new BreakerboxError('BB_ERR_INGEST_BUSY', `bodies in flight hold more than ingest.max_inflight_body_bytes (${budget.max})`, {
            headers: { 'retry-after': '1', connection: 'close' },
          }),
        );
      }
      out.push(chunk);
      reserve();
    };
    if (gzip) {
      inflater = createGunzip();
      inflater.on('data', (chunk: Buffer) => take(chunk, true));
      inflater.on('error', (err) => finish(new BreakerboxError('BB_ERR_INGEST_BAD_ENCODING', 'the body is not valid gzip', { cause: err })));
      inflater.on('end', () => finish(null, out.result()));
    }
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return finish(tooLarge(limit, false));
      if (inflater) inflater.write(chunk);
      else take(chunk, false);
    };
    const onEnd = () => {
      ended = true;
      if (inflater) inflater.end();
      else finish(null, out.result());
    };
    const onError = (err: Error) => finish(err);
    // A client that goes away (or is cut off by a timeout) mid-body frees its bytes at once.
    const onClose = () => ended || finish(new BreakerboxError('BB_ERR_INGEST_INVALID', 'the client closed the connection before the body was complete'));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
