/**
 * A real collector (the lead's `server/` app) on port 0 with a temp SQLite file and an
 * ingest token, for the prober's end-to-end tests.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config/load.ts';
import type { Config } from '../../server/config/schema.ts';
import { sqlOf } from '../support/sql.ts';

/** Starts a collector (`suspicion` overrides that section); `close` stops it and removes its files. */
export async function startCollector(options: { suspicion?: Partial<Config['suspicion']> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bbx-probe-e2e-'));
  const dbPath = join(dir, 'bbx.db');
  const loaded = loadConfig({ env: { BREAKERBOX_DB: dbPath, BREAKERBOX_PORT: '0', BREAKERBOX_LOG_LEVEL: 'silent' } });
  const config: Config = { ...loaded, suspicion: { ...loaded.suspicion, ...options.suspicion } };
  const app = await buildApp({ config, logger: false });
  await app.ready();
  const ingestToken = (await app.storage.tokens.create('prober', ['ingest'])).secret;
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  let closed = false;
  return {
    app,
    url,
    ingestToken,
    /** Rows of a query on the collector's database. */
    rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[] {
      return sqlOf(app).prepare(sql).all(...params) as T[];
    },
    /** Stops the collector (checkpointing SQLite into its file). */
    async stop() {
      if (closed) return;
      closed = true;
      await app.close();
    },
    /** Every byte the collector wrote to disk (database, WAL, shared memory), as latin1 text. */
    diskText(): string {
      return readdirSync(dir)
        .map((f) => readFileSync(join(dir, f)).toString('latin1'))
        .join('\n');
    },
    async close() {
      await this.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
