import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { batch, makeApp, windowEvent } from '../server/helpers.ts';

// Counts the evidence sentences built: the pass decides every key, the text is built for what is shown.
const built = vi.hoisted(() => ({ evidence: 0 }));
vi.mock('../../server/verdicts/evidence.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../server/verdicts/evidence.ts')>();
  return { ...real, evidence: (...args: Parameters<typeof real.evidence>) => ((built.evidence += 1), real.evidence(...args)) };
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const keyN = (n: number): BreakerKey => ({ provider: 'p', endpoint: 'chat', model: `m-${String(n).padStart(3, '0')}` });

describe('evidence text is built for what is shown', () => {
  it('a page of /api/verdicts builds the text of its rows only; the whole list builds every row', async () => {
    const t = await makeApp({ api: { default_limit: 50, max_limit: 50, read_worker: false } });
    cleanups.push(() => t.close());
    // Healthy keys: a degraded key that cites failed-call samples has its text built in the pass (the samples are read for it there).
    const events = Array.from({ length: 12 }, (_, i) => windowEvent({ key: keyN(i), calls: 120 + i, ok: 120 + i, slow: 0, errors: {} }));
    const res = await t.app.inject({
      method: 'POST', url: '/v1/telemetry',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
      payload: JSON.stringify(batch(events)),
    });
    expect(res.statusCode, res.body).toBe(200);
    const range = t.app.resolveWindow({ window: '15m' }, '15m');

    built.evidence = 0;
    const paged = await t.app.inject({ url: `/api/verdicts?limit=3&to=${range.to}&from=${range.from}`, headers: { authorization: `Bearer ${t.tokens.read}` } });
    expect(paged.statusCode, paged.body).toBe(200);
    const body = paged.json();
    expect(body.total).toBe(12);
    expect(body.verdicts).toHaveLength(3);
    expect(body.verdicts.every((v: { evidence: string[] }) => v.evidence.length > 0)).toBe(true);
    expect(built.evidence).toBe(3);

    built.evidence = 0;
    const all = await t.app.verdicts.verdicts(range);
    expect(all).toHaveLength(12);
    expect(built.evidence).toBe(12);
    // The page is the whole list's first rows, text included.
    expect(body.verdicts).toEqual(JSON.parse(JSON.stringify(all.slice(0, 3))));
  });
});
