import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { batch, oneOfEach, tempDir, testConfig } from './helpers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('self-telemetry', () => {
  it('exports traces of requests and database writes over OTLP when an endpoint is set', async () => {
    const received: string[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push(`${req.url} ${body}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => collector.close(r)));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildApp({ config: testConfig(join(tmp.dir, 'db'), { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), logger: false });
    const { secret } = await app.storage.tokens.create('t', ['ingest']);
    const res = await app.inject({
      method: 'POST', url: '/v1/telemetry',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      payload: JSON.stringify(batch(oneOfEach())),
    });
    expect(res.statusCode).toBe(200);
    await app.close(); // flushes the exporter

    const traces = received.filter((r) => r.startsWith('/v1/traces')).join('\n');
    expect(traces).toContain('db.insert_batch');
    expect(traces).toContain('POST /v1/telemetry');
    expect(traces).not.toContain(secret);
  });
});
