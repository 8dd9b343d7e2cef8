import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { PassthroughTally, PASSTHROUGH_OTHER, PassthroughCountSchema, TelemetrySender, type TelemetryBatch, type TelemetryEvent } from '@breakerbox/protocol';
import { TypeCompiler } from '@sinclair/typebox/compiler';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A receiver answering `statuses` in order (then 200), keeping every batch it got. */
async function receiver(statuses: number[]) {
  const got: TelemetryBatch[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      got.push(JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')));
      res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{"accepted":1,"duplicate":false}');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

const event = (i: number): TelemetryEvent => ({
  type: 'transition', ts: 1_700_000_000_000 + i, key: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' }, from: null, to: 'closed', reason: 'created',
});
const source = { service: 'svc', instance: 'i-1' };

describe('PassthroughTally', () => {
  it('adds per host, path family and method, keeps the latest reason, and empties on take', () => {
    const t = new PassthroughTally();
    t.add('h', '/v1/x', 'POST', 'a');
    t.add('h', '/v1/x', 'POST', 'b');
    t.add('h', '/v1/x', 'GET');
    expect(t.take()).toEqual([{ host: 'h', path_family: '/v1/x', method: 'POST', count: 2, why: 'b' }, { host: 'h', path_family: '/v1/x', method: 'GET', count: 1 }]);
    expect(t.size).toBe(0);
    expect(t.take()).toEqual([]);
  });

  it('cuts every string to what the batch schema accepts, so a batch is never refused for them', () => {
    const t = new PassthroughTally();
    t.add('h'.repeat(300), `/${'p'.repeat(300)}`, 'PROPFINDPROPFINDPROPFIND', 'w'.repeat(500));
    t.add('', '', '');
    const check = TypeCompiler.Compile(PassthroughCountSchema);
    for (const e of t.take()) expect(check.Check(e), JSON.stringify([...check.Errors(e)])).toBe(true);
  });

  it('holds at most maxEntries entries, folding the rest into one (other) entry', () => {
    const t = new PassthroughTally(5);
    for (let i = 0; i < 50; i++) t.add(`h${i}`, '/', 'GET', undefined, 2);
    const out = t.take();
    expect(out).toHaveLength(5);
    expect(out.reduce((n, e) => n + e.count, 0)).toBe(100);
    expect(out[4]).toEqual({ host: PASSTHROUGH_OTHER, path_family: PASSTHROUGH_OTHER, method: PASSTHROUGH_OTHER, count: 92 });
  });
});

describe('the telemetry sender with a passthrough tally', () => {
  it('sends the counts in a batch of their own when no event waits, taken once', async () => {
    const rx = await receiver([]);
    const tally = new PassthroughTally();
    const sender = new TelemetrySender({ url: rx.url, source, gzip: false, passthrough: tally });
    tally.add('h', '/v1/x', 'GET');
    await sender.flush(2_000);
    await sender.flush(2_000);
    await sender.close(1_000);
    expect(rx.got).toHaveLength(1);
    expect(rx.got[0]).toMatchObject({ events: [], passthrough: [{ host: 'h', path_family: '/v1/x', method: 'GET', count: 1 }] });
  });

  it('keeps the counts with the first half of a batch the collector found too large, and sends them once', async () => {
    const rx = await receiver([413]);
    const tally = new PassthroughTally();
    const sender = new TelemetrySender({ url: rx.url, source, gzip: false, passthrough: tally });
    sender.enqueue([event(1), event(2), event(3), event(4)]);
    tally.add('h', '/v1/x', 'POST', 'why', 3);
    await sender.flush(2_000);
    await sender.close(1_000);
    expect(rx.got.map((b) => [b.events.length, b.passthrough?.[0]?.count])).toEqual([[4, 3], [2, 3], [2, undefined]]);
  });
});
