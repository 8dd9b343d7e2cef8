/** A real collector listening on a loopback port for the OTLP exporters, on a temp database. */
import { makeApp } from '../server/helpers.ts';

export async function startCollector() {
  const ctx = await makeApp();
  const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const read = async <T = any>(path: string): Promise<T> => {
    const res = await ctx.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${ctx.tokens.read}` } });
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${res.body}`);
    return res.json() as T;
  };
  return { ...ctx, url: address, read };
}
