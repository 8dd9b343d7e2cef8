/**
 * A provider's front door with accounts: a loopback HTTP proxy in front of a fake provider
 * that knows which API key belongs to which account and answers, as the real APIs do,
 * when an account's quota is exhausted — OpenAI `429 insufficient_quota`, Anthropic
 * `400 credit balance is too low`. Every other request is passed through untouched, so
 * one service can exhaust its quota while the probers (another key) are served.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEMO_ERROR_CODES, DemoError } from './errors.ts';

/** A running gate. */
export interface AccountGate {
  /** `http://127.0.0.1:<port>`: use it wherever the provider's URL is wanted. */
  url: string;
  /**
   * From now on, requests with this API key get the quota answer: the billing quota
   * (`insufficient_quota`, default) or the account's rate-limit quota (OpenAI `429
   * rate_limit_exceeded`, which the SDK's breaker counts and retries).
   */
  exhaust(apiKey: string, answer?: QuotaAnswer): void;
  restore(apiKey: string): void;
  close(): Promise<void>;
}

/** Which quota an exhausted account hits. */
export type QuotaAnswer = 'quota' | 'rate_limit';

const OPENAI_RATE_LIMIT = JSON.stringify({
  error: {
    message: 'Rate limit reached for requests per min (RPM) in organization org-demo: Limit 60, Used 60, Requested 1.',
    type: 'requests',
    param: null,
    code: 'rate_limit_exceeded',
  },
});
const OPENAI_QUOTA = JSON.stringify({
  error: {
    message: 'You exceeded your current quota, please check your plan and billing details.',
    type: 'insufficient_quota',
    param: null,
    code: 'insufficient_quota',
  },
});
const ANTHROPIC_QUOTA = JSON.stringify({
  type: 'error',
  error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.' },
});

function apiKeyOf(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return header;
  return /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
}

/** Starts a gate on an ephemeral loopback port in front of `upstreamUrl`. */
export async function startAccountGate(upstreamUrl: string): Promise<AccountGate> {
  const upstream = new URL(upstreamUrl);
  const exhausted = new Map<string, QuotaAnswer>();
  const sockets = new Set<Socket>();
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });

  const quota = (req: IncomingMessage, res: ServerResponse, answer: QuotaAnswer) => {
    const anthropic = (req.url ?? '').startsWith('/v1/messages');
    const body = anthropic ? ANTHROPIC_QUOTA : answer === 'rate_limit' ? OPENAI_RATE_LIMIT : OPENAI_QUOTA;
    res.writeHead(anthropic ? 400 : 429, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };

  const server = createServer((req, res) => {
    const key = apiKeyOf(req);
    const answer = key === undefined ? undefined : exhausted.get(key);
    if (answer !== undefined) {
      req.resume();
      req.on('end', () => quota(req, res, answer));
      return;
    }
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // The provider cutting a stream must reach the client as a cut, not as a clean end.
        answer.on('aborted', () => res.destroy());
        answer.on('error', () => res.destroy());
      },
    );
    // A reset by the provider is passed on as a reset, so the client sees what it would see.
    out.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new DemoError(DEMO_ERROR_CODES.GATE, `account gate: ${err.message}`)));
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    exhaust: (apiKey, answer = 'quota') => void exhausted.set(apiKey, answer),
    restore: (apiKey) => void exhausted.delete(apiKey),
    async close() {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
