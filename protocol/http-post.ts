/**
 * One bounded HTTP POST for the telemetry sender, on `node:http(s)` so that nothing of it
 * can hurt the host: the socket is unref'd (an unanswered request never keeps a process
 * alive), the whole exchange has one deadline, and the reply is read only up to a small
 * cap, then the connection is dropped — a collector answering with 400 MB costs a few KiB.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** What the sender needs of an answer. */
export interface PostResult {
  status: number;
  /** `Retry-After`, raw. */
  retryAfter?: string;
  /** At most `maxReplyBytes` of the body, as text (error details for logs). */
  text: string;
}

/** One connection pool per sender; its idle sockets are unref'd by Node itself. */
export type PostAgent = HttpAgent;

/** A keep-alive agent with one socket: the sender keeps at most one request in flight. */
export function createPostAgent(url: URL): PostAgent {
  const options = { keepAlive: true, maxSockets: 1, keepAliveMsecs: 15_000 };
  return url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
}

/** Options of one POST. */
export interface PostOptions {
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  maxReplyBytes: number;
  agent: PostAgent;
}

/** POSTs `body`; rejects on network errors and on the deadline, never hangs longer than `timeoutMs`. */
export function post(url: URL, o: PostOptions): Promise<PostResult> {
  return new Promise<PostResult>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (err: Error | undefined, result?: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (err) reject(err);
      else resolve(result!);
    };
    const req = send(url, {
      method: 'POST',
      agent: o.agent,
      headers: { ...o.headers, 'content-length': String(o.body.length) },
    });
    const deadline = setTimeout(() => {
      req.destroy(new Error(`no answer from the collector within ${o.timeoutMs} ms`));
    }, o.timeoutMs);
    deadline.unref();
    req.on('socket', (socket) => socket.unref());
    req.on('error', (err) => finish(err));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const ra = res.headers['retry-after'];
      const done = () => {
        finish(undefined, {
          status: res.statusCode ?? 0,
          ...(ra !== undefined ? { retryAfter: Array.isArray(ra) ? ra[0]! : ra } : {}),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      };
      res.on('data', (chunk: Buffer) => {
        if (size < o.maxReplyBytes) chunks.push(chunk.subarray(0, o.maxReplyBytes - size));
        size += chunk.length;
        if (size >= o.maxReplyBytes) {
          // Enough to know the answer: drop the rest, and the connection with it.
          done();
          res.destroy();
          req.destroy();
        }
      });
      res.on('end', done);
      res.on('error', (err) => finish(err));
      res.on('aborted', () => done());
    });
    req.end(o.body);
  });
}
