import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';
import { familyNames, scrape } from './support.ts';

const DASHBOARD = JSON.parse(readFileSync(new URL('../../integrations/grafana/breakerbox.json', import.meta.url), 'utf8')) as {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
  templating: { list: { type: string; query: unknown }[] };
  annotations: { list: { expr?: string }[] };
};

/** PromQL words that are not metric names. */
const WORDS = new Set([
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan',
  'label_values',
]);

/**
 * The metric names a PromQL expression reads: identifiers outside strings, label matchers,
 * grouping clauses and ranges, that are not function calls or keywords.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\$\{?[a-zA-Z_]+\}?/g, '');
  const out: string[] = [];
  for (const m of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const rest = bare.slice(m.index! + m[0].length);
    if (/^\s*\(/.test(rest) || WORDS.has(m[0].toLowerCase())) continue;
    out.push(m[0]);
  }
  return out;
}

function dashboardExprs(): string[] {
  const exprs: string[] = [];
  for (const p of DASHBOARD.panels) for (const t of p.targets ?? []) exprs.push(t.expr);
  for (const v of DASHBOARD.templating.list) {
    if (v.type !== 'query') continue;
    const q = v.query as { query: string };
    exprs.push(q.query.replace(/^label_values\((.*),\s*[a-z_]+\)$/, '$1'));
  }
  for (const a of DASHBOARD.annotations.list) if (a.expr) exprs.push(a.expr);
  return exprs;
}

let c: TestCollector;
let exported: Set<string>;
const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };

beforeAll(async () => {
  c = await collector();
  const from = c.now - 5 * MIN;
  await c.send({ service: 'svc', instance: 'pod-1' }, [
    transition(KEY, from, null, 'closed', 'created'),
    transition(KEY, from + MIN, 'closed', 'open'),
    ...windows(KEY, from, c.now, { calls: 10, errors: { server: 1 } }),
    {
      type: 'tasks', start: from, end: from + MIN, operation: 'op', completed: 9, failed: 1, degraded: 0, attempts: 12,
      cost_usd: 0.1, levels: { '0': 9 }, fallback: { invoked: 1, failed: 0 },
    },
  ]);
  await c.send({ service: 'prober', instance: 'eu' }, probes(KEY, 'eu-west', from, c.now, 'ok'));
  exported = new Set<string>();
  const page = await scrape(c);
  for (const name of familyNames(page)) {
    exported.add(name);
    if (page.includes(`# TYPE ${name} histogram`)) for (const s of ['_bucket', '_sum', '_count']) exported.add(`${name}${s}`);
  }
});
afterAll(() => c.close());

describe('integrations/grafana/breakerbox.json', () => {
  it('reads only metrics the collector exports', () => {
    const exprs = dashboardExprs();
    expect(exprs.length).toBeGreaterThan(40);
    const used = new Set(exprs.flatMap(metricNames));
    expect(used.size).toBeGreaterThan(30);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('covers the fleet, one key, probes per location and the collector itself', () => {
    const rows = DASHBOARD.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows).toEqual(expect.arrayContaining(['Fleet overview by provider and model', 'Probes per location', 'Collector health']));
    expect(rows.some((r) => r.startsWith('Key detail'))).toBe(true);
  });

  it('extracts metric names from PromQL, not functions, labels or keywords', () => {
    expect(metricNames('histogram_quantile(0.95, sum by (provider, le) (rate(a_bucket{x="y",z=~"$v"}[$__rate_interval]))) / on (k) b_total')).toEqual(['a_bucket', 'b_total']);
  });
});
