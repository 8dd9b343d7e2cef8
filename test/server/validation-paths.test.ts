import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RouteOptions } from 'fastify';
import { makeApp } from './helpers.ts';

// Every route the collector registers, seen through an onRoute hook (as route-contract.test.ts does).
const registered = vi.hoisted(() => [] as RouteOptions[]);
vi.mock('fastify', async (importOriginal) => {
  const real = await importOriginal<typeof import('fastify')>();
  const create = ((options?: Parameters<typeof real.default>[0]) => {
    const app = real.default(options);
    app.addHook('onRoute', (route) => {
      registered.push(route);
    });
    return app;
  }) as typeof real.default;
  return { ...real, default: create, fastify: create };
});

interface ObjectSchema {
  type?: string;
  required?: string[];
  additionalProperties?: boolean;
}

describe('every validation 400 names the field', () => {
  let ctx: Awaited<ReturnType<typeof makeApp>>;
  const post = (url: string, payload: unknown) =>
    ctx.app.inject({ method: 'POST', url, payload: payload as object, headers: { authorization: `Bearer ${ctx.tokens.admin}` } });
  const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ctx.tokens.admin}` } });
  beforeAll(async () => {
    ctx = await makeApp();
  });
  afterAll(async () => ctx?.close());

  it('names an unknown body property by its path: POST /api/drills {"minutez": 1}', async () => {
    const res = await post('/api/drills', { service: 'drafts', minutez: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({ code: 'BB_ERR_QUERY_INVALID', path: '/body/minutez', message: '/body/minutez: unknown property' });
  });

  it('names a missing property, a wrong type, an enum miss and a range miss', async () => {
    const missing = await post('/api/fleet/drain', { reason: 'x', expires_in_s: 60 });
    expect(missing.json().error).toMatchObject({ path: '/body/key', message: '/body/key: is required' });

    const wrongType = await post('/api/drills', { service: 'drafts', minutes: 'ten' });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().error.path).toBe('/body/minutes');
    expect(wrongType.json().error.message).toMatch(/^\/body\/minutes: must be number/);

    const badKind = await post('/api/drills', { service: 'drafts', kinds: ['rate_limit', 'meteor'] });
    expect(badKind.json().error.path).toBe('/body/kinds/1');
    expect(badKind.json().error.message).toMatch(/^\/body\/kinds\/1: must be one of "rate_limit", .*"auth_revoked"/);

    const range = await post('/api/drills', { service: 'drafts', step_s: 0 });
    expect(range.json().error).toMatchObject({ path: '/body/step_s', message: '/body/step_s: must be >= 1' });

    const nested = await post('/api/silences', { matchers: [{ name: 'service', value: 'drafts', regexx: true }], ends_at: 1, comment: 'c' });
    expect(nested.json().error).toMatchObject({ path: '/body/matchers/0/regexx', message: '/body/matchers/0/regexx: unknown property' });

    const keyField = await post('/api/fleet/drain', { key: { provider: 'openai', endpoint: 'chat' }, reason: 'x', expires_in_s: 60 });
    expect(keyField.json().error).toMatchObject({ path: '/body/key/model', message: '/body/key/model: is required' });
  });

  it('names query string fields: unknown, out of range, missing', async () => {
    const pattern = await get('/api/keys?limit=-5');
    expect(pattern.statusCode).toBe(400);
    expect(pattern.json().error.path).toBe('/querystring/limit');
    expect(pattern.json().error.message).toMatch(/^\/querystring\/limit: must match pattern/);

    const range = await get('/v1/probe-requests?location=eu-west&wait_s=500');
    expect(range.json().error).toMatchObject({ path: '/querystring/wait_s', message: '/querystring/wait_s: must be <= 120' });

    const unknown = await get('/v1/probe-requests?location=eu-west&wait=3');
    expect(unknown.json().error).toMatchObject({ path: '/querystring/wait', message: '/querystring/wait: unknown property' });

    const missing = await get('/api/fleet?provider=openai&endpoint=chat');
    expect(missing.json().error).toMatchObject({ path: '/querystring/model', message: '/querystring/model: is required' });
  });

  it('on every route whose body or query string refuses unknown or missing fields, the 400 names a field below the part', async () => {
    const checked: string[] = [];
    const vague: string[] = [];
    for (const route of registered) {
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
      const url = route.url.replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000');
      for (const method of methods) {
        for (const part of ['body', 'querystring'] as const) {
          const schema = route.schema?.[part] as ObjectSchema | undefined;
          if (!schema || (!schema.required?.length && schema.additionalProperties !== false)) continue;
          const res = await ctx.app.inject({
            method: method as 'GET',
            url: part === 'querystring' ? `${url}?zz_unknown=1` : url,
            ...(part === 'body' ? { payload: { zz_unknown: 1 } } : {}),
            headers: { authorization: `Bearer ${ctx.tokens.admin}` },
          });
          const id = `${method} ${route.url} (${part})`;
          const error = res.json().error as { path?: string; message: string } | undefined;
          if (res.statusCode !== 400) continue; // refused earlier (feature off, 404) — the explicit cases above cover these parts
          checked.push(id);
          const named = error?.path?.startsWith(`/${part}/`) && error.message.startsWith(`${error.path}: `);
          if (!named) vague.push(`${id}: ${JSON.stringify(error)}`);
        }
      }
    }
    expect(vague).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(8);
  });
});
