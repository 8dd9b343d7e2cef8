import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../package-root.ts';
import type { FastifyReply } from 'fastify';

/** Where `npm run build` writes the dashboard. */
export const DASHBOARD_DIST = join(packageRoot(), 'dashboard', 'dist');

/**
 * The dashboard's view URLs. Each answers with `index.html` so a link pasted into an
 * incident channel opens the same view; everything else unknown stays a JSON 404.
 */
export const VIEW_PATHS = ['/', '/sign-in', '/key', '/alerts', '/cost', '/probes', '/lifecycle', '/drills'] as const;

/** Options of the dashboard plugin. */
export interface DashboardOptions {
  /** The built dashboard folder (default `dashboard/dist`). */
  dist?: string;
}

const NOT_BUILT = `The breakerbox dashboard has not been built.

Build it once with:

    npm run build

("npm install" and "npm start" do this for you), then reload this page.
The collector's APIs (/v1/telemetry, /api/*) work without it.
`;

// Pages get a strict policy: only this origin's scripts, no framing, no referrer leaks.
// Inline styles are allowed because recharts sets style attributes on SVG elements.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/**
 * Serves the built dashboard: hashed assets under `/assets/` (cached for a year, immutable),
 * and `index.html` for every view URL (never cached, so a new build shows on reload). When
 * the build is missing, view URLs answer 503 with plain text saying how to build it.
 */
export const dashboardPlugin = fp<DashboardOptions>(async (app, options) => {
  const dist = options.dist ?? DASHBOARD_DIST;
  const assets = join(dist, 'assets');
  if (existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (reply) => reply.header('x-content-type-options', 'nosniff'),
    });
  }
  const page = async (_request: unknown, reply: FastifyReply) => {
    const index = join(dist, 'index.html');
    if (!existsSync(index)) {
      return reply.code(503).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
    }
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(await readFile(index));
  };
  for (const path of VIEW_PATHS) app.get(path, page);
});
