/**
 * Small I/O helpers of the fake provider.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Reads a request body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Writes a chunk and resolves once it has been handed to the kernel (or the response died). */
export function flushed(res: ServerResponse, chunk: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(chunk, () => resolve());
  });
}

/** A signal aborted when the response closes (finished or cut by the client). */
export function closeSignal(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => ac.abort());
  return ac.signal;
}

/** Waits `ms`, or less if `signal` aborts first; never rejects. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `v` when it is a finite number, else `fallback`. */
export function numberOr(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** The first value of a possibly repeated header. */
export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Lower-case header map with credentials replaced by `[redacted]`. */
export function redact(h: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k] = k === 'authorization' || k === 'x-api-key' || k === 'api-key' || k === 'x-goog-api-key' ? '[redacted]' : Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}
