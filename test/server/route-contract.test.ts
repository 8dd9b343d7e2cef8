import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RouteOptions } from 'fastify';
import { makeApp } from './helpers.ts';
import { DASHBOARD_DIST, VIEW_PATHS } from '../../server/plugins/dashboard.ts';

// Every route the collector registers, seen through an onRoute hook added to the app as
// fastify creates it (buildApp registers its plugins before a test could add the hook).
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

/** Routes without schemas, and why: they answer HTML or files, not the JSON API. */
const EXEMPT = new Map<string, string>([
  ...VIEW_PATHS.map((path): [string, string] => [`GET ${path}`, 'a dashboard page: index.html for a view URL']),
  ['GET /assets/*', 'dashboard assets served by @fastify/static'],
]);

const methodsOf = (route: RouteOptions) => (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
const served = () => registered.flatMap((route) => methodsOf(route).map((method) => ({ id: `${method} ${route.url}`, route })));

/** Every `METHOD /path` the API document names. */
function documentedRoutes(): Set<string> {
  const text = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  return new Set([...text.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^\s`?]*)/g)].map((m) => `${m[1]} ${m[2]}`));
}

describe('the route contract', () => {
  let ctx: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    ctx = await makeApp();
  });
  afterAll(async () => ctx?.close());

  it('sees the routes the app serves through the onRoute hook', () => {
    const ids = served().map((r) => r.id);
    expect(ids).toContain('GET /api/keys');
    expect(ids).toContain('POST /v1/telemetry');
    expect(ids.length).toBeGreaterThan(20);
  });

  it('gives every route but the dashboard pages and assets a success reply schema and the error body for 4xx and 5xx', () => {
    const lacking: string[] = [];
    for (const { id, route } of served()) {
      if (EXEMPT.has(id)) continue;
      const response = (route.schema?.response ?? {}) as Record<string, unknown>;
      const success = Object.keys(response).filter((code) => /^2(\d\d|xx)$/.test(code));
      if (success.length === 0) lacking.push(`${id}: no 2xx reply schema`);
      for (const errors of ['4xx', '5xx']) if (!response[errors]) lacking.push(`${id}: no ${errors} reply schema`);
    }
    expect(lacking).toEqual([]);
  });

  it('declares every error reply as the catalog error body (error.code, error.message)', () => {
    for (const { id, route } of served()) {
      if (EXEMPT.has(id)) continue;
      const response = route.schema!.response as Record<string, { properties?: Record<string, { required?: string[] }> }>;
      for (const errors of ['4xx', '5xx']) {
        expect(response[errors]?.properties?.error?.required, `${id} ${errors}`).toEqual(['code', 'message']);
      }
    }
  });

  it('keeps its exemptions to routes that exist', () => {
    const ids = new Set(served().map((r) => r.id));
    // The assets route exists only once the dashboard is built.
    const assetsBuilt = existsSync(join(DASHBOARD_DIST, 'assets'));
    for (const id of EXEMPT.keys()) if (id !== 'GET /assets/*' || assetsBuilt) expect(ids, id).toContain(id);
  });

  it('serves every route docs/api.md names', () => {
    const ids = new Set(served().map((r) => r.id));
    const missing = [...documentedRoutes()].filter((id) => !ids.has(id));
    expect(missing).toEqual([]);
  });

  it('documents every /api and /v1 route it serves in docs/api.md', () => {
    const documented = documentedRoutes();
    const undocumented = served()
      .map((r) => r.id)
      .filter((id) => /^\w+ \/(api|v1)\//.test(id) && !documented.has(id));
    expect(undocumented).toEqual([]);
  });

  it('serialises a refused query through the 4xx reply schema as the catalog error body, path kept', async () => {
    const refused = await ctx.app.inject({ method: 'GET', url: '/api/keys?window=2y', headers: { authorization: `Bearer ${ctx.tokens.read}` } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ error: { code: 'BB_ERR_QUERY_INVALID', message: expect.any(String), path: '/querystring/window' } });
  });
});

describe('the schema modules', () => {
  it("import only typebox, the protocol's schemas and taxonomy (types from its index) and each other, so the dashboard can take its types from them", () => {
    const dir = new URL('../../server/schemas/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    const foreign: string[] = [];
    for (const file of files) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const [statement, from] of text.matchAll(/^(?:import|export)[^;]*?from '([^']+)'/gm)) {
        const allowed = ['@sinclair/typebox', '@breakerbox/protocol/schemas', '@breakerbox/protocol/taxonomy'].includes(from!)
          || /^\.\/[a-z-]+\.ts$/.test(from!)
          // The protocol's index also holds its node-only sender: types only from there.
          || (from === '@breakerbox/protocol' && /^(import|export) type /.test(statement));
        if (!allowed) foreign.push(`${file}: ${from}`);
      }
    }
    expect(foreign).toEqual([]);
  });
});
