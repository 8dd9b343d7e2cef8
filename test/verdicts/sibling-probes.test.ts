import { describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { siblingProbes } from '../../server/verdicts/sibling-probes.ts';
import type { KeyInfo } from '../../server/storage/storage.ts';
import type { ProbeFigures, ProbeStatus } from '../../server/verdicts/types.ts';

const figures = (status: ProbeStatus, probes = 10, failed = status === 'failing' ? probes : 0): ProbeFigures => ({
  probes, ok: probes - failed, slow: 0, error: failed, wrong_answer: 0, misconfigured: 0, cold: 0, success_share: null, slow_share: null,
  latency_ms: { p50: null, p95: null, mean: null }, recent: { probes, failed }, status, last_ts: null, set_aside: false,
});

const KEYS: BreakerKey[] = [
  { provider: 'mistral', endpoint: 'chat', model: 'mistral-large-latest' },
  { provider: 'mistral', endpoint: 'chat', model: 'codestral-latest' },
  { provider: 'mistral', endpoint: 'embeddings', model: 'mistral-embed' },
  { provider: 'mistral', endpoint: 'chat', model: 'mistral-small', region: 'eu' },
  { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' },
  { provider: 'mistral-proxy', endpoint: 'chat', model: 'ministral-8b' },
];
const keys = new Map<number, KeyInfo>(KEYS.map((key, i) => [i + 1, { id: i + 1, key, firstSeen: 0, lastSeen: 0 }]));

describe('siblingProbes (the same provider\'s other keys, as evidence)', () => {
  it('reads the same provider\'s keys (aliases joined), never another provider\'s, and says failing when every location fails', () => {
    const table = new Map<number, Record<string, ProbeFigures>>([
      [2, { 'eu-west': figures('failing'), 'us-east': figures('failing') }],
      [3, { 'eu-west': figures('failing') }],
      [5, { 'eu-west': figures('ok') }],
      [6, { 'us-east': figures('failing', 4) }],
    ]);
    const s = siblingProbes(1, keys, (id) => table.get(id), table.keys(), { 'mistral-proxy': 'mistral' }, [1]);
    expect(s).toMatchObject({ side: 'failing', failing: ['eu-west', 'us-east'], ok: [], probes: 34, failed: 34 });
    expect(s!.keys.map((k) => k.model)).toEqual(['codestral-latest', 'ministral-8b', 'mistral-embed']);
  });

  it('keeps to the key\'s region when it has one', () => {
    const table = new Map<number, Record<string, ProbeFigures>>([[2, { 'eu-west': figures('failing') }]]);
    expect(siblingProbes(4, keys, (id) => table.get(id), table.keys(), {}, [4])).toBeUndefined();
  });

  it('is partial when one sibling is served where another fails, healthy when all are served', () => {
    const partial = new Map<number, Record<string, ProbeFigures>>([
      [2, { 'eu-west': figures('failing'), 'us-east': figures('failing') }],
      [3, { 'us-east': figures('ok') }],
    ]);
    expect(siblingProbes(1, keys, (id) => partial.get(id), partial.keys(), {}, [1])).toMatchObject({ side: 'partial', failing: ['eu-west'], ok: ['us-east'] });
    const healthy = new Map<number, Record<string, ProbeFigures>>([[2, { 'eu-west': figures('ok') }]]);
    expect(siblingProbes(1, keys, (id) => healthy.get(id), healthy.keys(), {}, [1])).toMatchObject({ side: 'healthy', failing: [], ok: ['eu-west'] });
  });

  it('ignores siblings whose locations have too few probes or are misconfigured', () => {
    const table = new Map<number, Record<string, ProbeFigures>>([[2, { 'eu-west': figures('insufficient', 2, 2) }], [3, { 'eu-west': figures('misconfigured') }]]);
    expect(siblingProbes(1, keys, (id) => table.get(id), table.keys(), {}, [1])).toBeUndefined();
  });
});
