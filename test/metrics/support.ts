import { spawnSync } from 'node:child_process';
import { findTool, REQUIRED_TOOLS } from '../support/required-tools.ts';
import type { TestCollector } from '../verdicts/support.ts';

/** GET /metrics with the collector's token; fails on anything but 200 in the exposition content type. */
export async function scrape(c: TestCollector): Promise<string> {
  const res = await c.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${c.token}` } });
  if (res.statusCode !== 200) throw new Error(`/metrics answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  if (res.headers['content-type'] !== 'text/plain; version=0.0.4; charset=utf-8') throw new Error(`content type ${res.headers['content-type']}`);
  return res.body;
}

/** The value of the sample `name{labels}` (labels exactly as rendered, '' for none), or undefined. */
export function sample(page: string, name: string, labels: string): number | undefined {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}} `;
  for (const line of page.split('\n')) if (line.startsWith(prefix)) return Number(line.slice(prefix.length));
  return undefined;
}

/** What `promtool check metrics` says about a page ('' when it has nothing to say). */
export function promtoolCheckMetrics(page: string): string {
  const run = spawnSync(findTool(REQUIRED_TOOLS.promtool) ?? 'promtool', ['check', 'metrics'], { input: page, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw new Error('promtool is not installed (Debian package "prometheus"): /metrics cannot be checked');
  return `${run.stdout}${run.stderr}${run.status === 0 ? '' : `exit ${run.status}`}`;
}

/** Metric family names a page declares (`# TYPE` lines). */
export function familyNames(page: string): Set<string> {
  return new Set([...page.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
}
