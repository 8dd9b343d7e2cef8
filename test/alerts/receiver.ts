import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a receiver got. */
export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** A local HTTP receiver on port 0 that records requests and answers per `respond`. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves when `n` requests have arrived in total. */
  waitFor(n: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** `respond` decides each answer; returning null leaves the request hanging (until close). */
export async function receiver(respond: (r: Received, index: number) => { status: number; body?: unknown } | null = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { n: number; resolve: (r: Received[]) => void }[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text: the test asserts on it.
      }
      const r = { path: req.url ?? '', headers: req.headers, body };
      received.push(r);
      const answer = respond(r, received.length - 1);
      for (const w of waiters.splice(0)) {
        if (received.length >= w.n) w.resolve([...received]);
        else waiters.push(w);
      }
      if (answer === null) {
        hanging.push(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    waitFor: (n) => (received.length >= n ? Promise.resolve([...received]) : new Promise((resolve) => waiters.push({ n, resolve }))),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
