/**
 * The `http` kind against a small local endpoint: expected status and JSON body,
 * usage read for cost, anything else classified by the SDK's classifier.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prober } from '../../probe/prober.ts';
import type { ProbeEvent } from '@breakerbox/protocol';
import { API_KEY, captureLogger, configOf, ManualScheduler, rawTarget } from './helpers.ts';

let server: Server;
let base: string;
const seen: Array<{ method: string; url: string; auth: string | undefined; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers['x-embed-key'] as string | undefined, body });
      const reply = (status: number, text: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(text);
      };
      if (req.url === '/v1/embeddings') return reply(200, JSON.stringify({ data: [{ embedding: [0.1, 0.2] }], usage: { prompt_tokens: 2000, total_tokens: 2000 } }));
      if (req.url === '/v1/text') return reply(200, 'plain words');
      if (req.url === '/v1/wrapped-error') return reply(200, JSON.stringify({ error: { type: 'rate_limit_error', message: 'slow down' } }));
      return reply(429, JSON.stringify({ error: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

async function probe(request: Record<string, unknown>): Promise<ProbeEvent> {
  const events: ProbeEvent[] = [];
  const prober = new Prober({
    config: configOf({
      targets: [rawTarget(base, 'emb', { kind: 'http', key: { provider: 'acme', endpoint: 'embeddings', model: 'emb-1' }, request, price: { input_per_mtok: 0.5, output_per_mtok: 0 } })],
    }),
    apiKeys: new Map([['PROBE_TEST_KEY', API_KEY]]),
    sink: (e) => events.push(e),
    logger: captureLogger().log,
    scheduler: new ManualScheduler(),
  });
  await prober.fire('emb');
  return events[0] as ProbeEvent;
}

describe('http kind', () => {
  it('sends the configured request with the key in the configured header and reads usage for cost', async () => {
    const event = await probe({ path: '/embeddings', body: { model: 'emb-1', input: 'ping' }, auth_header: 'X-Embed-Key', auth_scheme: '' });
    expect(event).toMatchObject({ outcome: 'ok', status: 200 });
    expect(event.cost_usd).toBeCloseTo(0.001, 9);
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/v1/embeddings', auth: API_KEY, body: '{"model":"emb-1","input":"ping"}' });
  });

  it('an unexpected status goes to the classifier', async () => {
    expect(await probe({ path: '/elsewhere', method: 'GET' })).toMatchObject({ outcome: 'error', error_class: 'rate_limit', status: 429 });
  });

  it('a 200 whose body is not JSON, or is an error envelope, is not ok', async () => {
    expect(await probe({ path: '/text', method: 'GET' })).toMatchObject({ outcome: 'error', error_class: 'server', status: 200 });
    expect(await probe({ path: '/wrapped-error', method: 'GET' })).toMatchObject({ outcome: 'error', error_class: 'rate_limit', status: 200 });
  });

  it('can accept a non-JSON body that contains an expected text', async () => {
    expect(await probe({ path: '/text', method: 'GET', expect_json: false, expect_contains: 'words' })).toMatchObject({ outcome: 'ok' });
    expect(await probe({ path: '/text', method: 'GET', expect_json: false, expect_contains: 'absent' })).toMatchObject({ outcome: 'error' });
  });
});
