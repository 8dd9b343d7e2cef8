import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PASSTHROUGH_ENTRIES, PASSTHROUGH_OTHER, type PassthroughCount } from '@breakerbox/protocol';
import { createBreakerbox } from '../../sdk/index.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startReceiver } from './telemetry-receiver.ts';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let rx: Receiver | undefined;
afterEach(async () => {
  await rx?.close();
  rx = undefined;
});

const GEMINI = (model: string) => new URL(`https://generativelanguage.googleapis.com/v1beta/models/${model}:generateContent?key=AIzaSECRET`);

/** The SDK's clock option over a manual clock: no timer fires unless the test advances it. */
const manual = (clock: ManualClock) => ({ now: () => clock.now(), setTimeout: (fn: () => void, ms: number) => clock.setTimeout(fn, ms), clearTimeout: (h: unknown) => clock.clearTimeout(h as never) });

function instance(url?: string) {
  const clock = new ManualClock(1_750_000_000_000);
  const bb = createBreakerbox({ clock: manual(clock), ...(url ? { telemetry: { url, token: 't', service: 'svc', instance: 'i-1', intervalMs: 60_000 } } : {}) });
  const warnings: string[] = [];
  bb.onWarning((w) => warnings.push(w));
  return { bb, clock, warnings };
}

const passthroughOf = (r: Receiver): PassthroughCount[] => r.received.flatMap((b) => b.batch.passthrough ?? []);

describe('bb.notePassthrough: nothing passes silently', () => {
  it('warns once per host and path family, naming the method, host, family, reason and how to protect it', () => {
    const { bb, warnings } = instance();
    bb.notePassthrough(GEMINI('gemini-2.5-flash'), 'post', 'unknown endpoint');
    bb.notePassthrough(GEMINI('gemini-2.5-pro'), 'POST', 'unknown endpoint');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('POST generativelanguage.googleapis.com/v1beta/models/{model}:generateContent');
    expect(warnings[0]).toContain('(unknown endpoint)');
    expect(warnings[0]).toContain('What bb.fetch protects');
    expect(warnings[0]).not.toContain('SECRET');
    bb.notePassthrough(new URL('https://api.openai.com/v1/models'), 'GET', 'no model in the body');
    bb.notePassthrough(new URL('https://other.example/v1/models'), 'GET', 'no model in the body');
    expect(warnings).toHaveLength(3);
    expect(warnings[1]).toContain('GET api.openai.com/v1/models was forwarded unprotected (no model in the body)');
  });

  it('goes to process.emitWarning under BB_WARN_SDK_PASSTHROUGH when nobody listens', () => {
    const bb = createBreakerbox({ clock: manual(new ManualClock(0)) });
    const seen: Array<{ message: string; code: string | undefined }> = [];
    const listener = (w: Error & { code?: string }) => seen.push({ message: w.message, code: w.code });
    process.on('warning', listener);
    const original = process.emitWarning;
    const captured: Array<[string, unknown]> = [];
    process.emitWarning = ((message: string, options: unknown) => captured.push([message, options])) as typeof process.emitWarning;
    try {
      bb.notePassthrough(new URL('https://x.example/v2/things/42'), 'DELETE', 'not JSON');
    } finally {
      process.emitWarning = original;
      process.off('warning', listener);
    }
    expect(captured).toHaveLength(1);
    expect(captured[0]![0]).toContain('DELETE x.example/v2/things/{id} was forwarded unprotected (not JSON)');
    expect(captured[0]![1]).toMatchObject({ code: 'BB_WARN_SDK_PASSTHROUGH' });
  });

  it('counts per host, path family and method into the next batch, which is sent even with no events', async () => {
    rx = await startReceiver();
    const { bb } = instance(rx.url);
    for (let i = 0; i < 3; i++) bb.notePassthrough(GEMINI(`gemini-${i}`), 'POST', 'unknown endpoint');
    bb.notePassthrough(GEMINI('gemini-0'), 'GET', 'unknown endpoint');
    bb.notePassthrough(new URL('http://127.0.0.1:8080/model/anthropic.claude-3-5-sonnet-20240620-v1:0/converse'), 'POST', 'no model in the body');
    await bb.flush(2_000);
    expect(rx.received.map((r) => r.problems)).toEqual([[]]);
    expect(rx.received[0]!.batch.events).toEqual([]);
    expect(passthroughOf(rx).sort((a, b) => `${a.host}${a.method}`.localeCompare(`${b.host}${b.method}`))).toEqual([
      { host: '127.0.0.1:8080', path_family: '/model/{model}/converse', method: 'POST', count: 1, why: 'no model in the body' },
      { host: 'generativelanguage.googleapis.com', path_family: '/v1beta/models/{model}:generateContent', method: 'GET', count: 1, why: 'unknown endpoint' },
      { host: 'generativelanguage.googleapis.com', path_family: '/v1beta/models/{model}:generateContent', method: 'POST', count: 3, why: 'unknown endpoint' },
    ]);
    expect(JSON.stringify(rx.received[0]!.batch)).not.toContain('SECRET');
    // Taken: the next batch does not count them again.
    bb.notePassthrough(GEMINI('gemini-0'), 'POST', 'unknown endpoint');
    await bb.close(2_000);
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]!.batch.passthrough).toEqual([{ host: 'generativelanguage.googleapis.com', path_family: '/v1beta/models/{model}:generateContent', method: 'POST', count: 1, why: 'unknown endpoint' }]);
  });

  it('keeps a bounded tally: past the cap, every request is counted in one (other) entry', async () => {
    rx = await startReceiver();
    const { bb, warnings } = instance(rx.url);
    const hosts = 1_000;
    for (let i = 0; i < hosts; i++) bb.notePassthrough(new URL(`https://h${i}.example/v1/x`), 'POST', 'unknown endpoint');
    await bb.close(2_000);
    const counts = passthroughOf(rx);
    expect(rx.received.map((r) => r.problems)).toEqual([[]]);
    expect(counts).toHaveLength(MAX_PASSTHROUGH_ENTRIES);
    expect(counts.reduce((n, c) => n + c.count, 0)).toBe(hosts);
    expect(counts.find((c) => c.host === PASSTHROUGH_OTHER)).toMatchObject({ path_family: PASSTHROUGH_OTHER, count: hosts - (MAX_PASSTHROUGH_ENTRIES - 1) });
    // Announcements are bounded too: 200 families, then counted only.
    expect(warnings).toHaveLength(200);
  });

  it('carries the counts beside the events of a batch, and retries them under the same batch id', async () => {
    rx = await startReceiver([{ status: 503 }]);
    const { bb } = instance(rx.url);
    await bb.execute({ provider: 'openai', endpoint: 'chat', model: 'gpt-4o' }, async () => 'ok');
    bb.notePassthrough(new URL('https://api.openai.com/v1/files'), 'POST', 'not JSON');
    await bb.flush(2_000); // answered 503: kept
    await bb.flush(2_000);
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]!.batch.batch_id).toBe(rx.received[0]!.batch.batch_id);
    for (const r of rx.received) {
      expect(r.batch.events.length).toBeGreaterThan(0);
      expect(r.batch.passthrough).toEqual([{ host: 'api.openai.com', path_family: '/v1/files', method: 'POST', count: 1, why: 'not JSON' }]);
    }
    await bb.close(2_000);
    expect(rx.received).toHaveLength(2);
  });

  it('without a collector, warns but keeps no counts', () => {
    const { bb, warnings } = instance();
    for (let i = 0; i < 10_000; i++) bb.notePassthrough(new URL(`https://h${i % 5}.example/v1/x`), 'POST', 'unknown endpoint');
    expect(warnings).toHaveLength(5);
    expect(bb.telemetryStats()).toBeUndefined();
  });
});
