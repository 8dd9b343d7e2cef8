/** A real collector listening on a loopback port for the OTLP exporters, on a temp database. */
import type { Config } from '../../server/config/schema.ts';
import { makeApp, testConfig } from '../server/helpers.ts';

/** `ingest` overrides (e.g. `otlp_traces_hold_ms`) on top of the test defaults. */
export async function startCollector(ingest: Partial<Config['ingest']> = {}) {
  const ctx = await makeApp({ ingest: { ...testConfig(':memory:').ingest, ...ingest } });
  const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const read = async <T = any>(path: string): Promise<T> => {
    const res = await ctx.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${ctx.tokens.read}` } });
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${res.body}`);
    return res.json() as T;
  };
  return { ...ctx, url: address, read };
}
