/**
 * A real collector (`server/app.ts`) on a fresh SQLite file, listening on a loopback port,
 * with an ingest token for the SDK and a read token for the API: what the SDK's
 * end-to-end tests send their telemetry to.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config/load.ts';
import type { ServerClock } from '../../server/clock.ts';

/** A started collector; `close` stops it and removes its files. */
export interface ListeningCollector {
  app: FastifyInstance;
  url: string;
  token: string;
  readToken: string;
  close(): Promise<void>;
}

/**
 * Starts a collector in a temporary directory named after `prefix`; `file` is written as its
 * config file (BREAKERBOX_CONFIG) and `env` adds settings, both through the real config loader;
 * `clock` replaces the collector's wall clock (a manual one: the test moves time).
 */
export async function startListeningCollector(prefix: string, options: { file?: object; env?: Record<string, string>; clock?: ServerClock } = {}): Promise<ListeningCollector> {
  const dir = mkdtempSync(join(tmpdir(), `bbx-${prefix}-`));
  const env: Record<string, string> = { BREAKERBOX_DB: join(dir, 'bbx.db'), BREAKERBOX_PORT: '0', BREAKERBOX_LOG_LEVEL: 'silent', ...options.env };
  if (options.file) {
    env.BREAKERBOX_CONFIG = join(dir, 'config.json');
    writeFileSync(env.BREAKERBOX_CONFIG, JSON.stringify(options.file));
  }
  const config = loadConfig({ env });
  const app = await buildApp({ config, logger: false, ...(options.clock ? { clock: options.clock } : {}) });
  try {
    await app.ready();
    const token = (await app.storage.tokens.create('sdk', ['ingest'])).secret;
    const readToken = (await app.storage.tokens.create('reader', ['read'])).secret;
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      app, url, token, readToken,
      async close() {
        await app.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await app.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
