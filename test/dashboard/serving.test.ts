import Fastify, { type FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardPlugin, VIEW_PATHS } from '../../server/plugins/dashboard.ts';
import { errorsPlugin } from '../../server/plugins/errors.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function serve(files: Record<string, string>): Promise<FastifyInstance> {
  const dist = mkdtempSync(join(tmpdir(), 'bbx-dist-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dist, name, '..'), { recursive: true });
    writeFileSync(join(dist, name), text);
  }
  const app = Fastify({ logger: false });
  await app.register(errorsPlugin);
  await app.register(dashboardPlugin, { dist });
  await app.ready();
  cleanups.push(() => app.close(), () => rmSync(dist, { recursive: true, force: true }));
  return app;
}

describe('serving the built dashboard', () => {
  it('answers every view URL with index.html under a strict content security policy', async () => {
    const app = await serve({ 'index.html': '<!doctype html><div id="root"></div>', 'assets/index-abc123.js': 'console.log(1)' });
    for (const path of [...VIEW_PATHS, '/key?provider=together&endpoint=chat&model=meta-llama%2FLlama-3.3-70B&region=us-east']) {
      const res = await app.inject({ url: path });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<div id="root">');
    }
  });

  it('serves hashed assets as immutable, and unknown paths as the JSON 404', async () => {
    const app = await serve({ 'index.html': '<!doctype html>', 'assets/index-abc123.js': 'console.log(1)' });
    const asset = await app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toContain('immutable');
    for (const path of ['/assets/missing.js', '/api/nope', '/v1/nope', '/no-such-view', '/index.html']) {
      const res = await app.inject({ url: path });
      expect(res.statusCode, path).toBe(404);
      expect(res.json().error.code).toBe('BB_ERR_QUERY_NOT_FOUND');
    }
  });

  it('says in plain text how to build the dashboard when the build is missing', async () => {
    const app = await serve({});
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('npm run build');
    expect((await app.inject({ url: '/api/nope' })).statusCode).toBe(404);
  });
});
