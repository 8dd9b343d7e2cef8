import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY_COLUMNS, PROBE_COLUMNS, TASK_COLUMNS, type BreakerKey } from '@breakerbox/protocol';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { MIGRATIONS_DIR } from '../../server/storage/migration-files.ts';
import { applyMigrations } from '../../server/storage/sqlite/migrations.ts';
import { createPruner } from '../../server/storage/sqlite/retention.ts';
import { MIN, collector, probes, transition, windows } from '../verdicts/support.ts';
import { sample, scrape } from './support.ts';
import { sqlOf } from '../support/sql.ts';

const DAY = 86_400_000;
const KEY: BreakerKey = { provider: 'mistral', endpoint: 'chat', model: 'mistral-large' };
const LABELS = 'provider="mistral",endpoint="chat",model="mistral-large",region=""';

describe('counters from the all-time totals', () => {
  it('are kept in tables with the rollup columns of the protocol package', () => {
    const db = openDatabase(':memory:');
    try {
      applyMigrations(db);
      const counters = (table: string, ids: string[]) =>
        (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name).filter((n) => !ids.includes(n));
      // By name, not position: migration 040's e_unclassified sits last in the table and in the error block of KEY_COLUMNS.
      expect(counters('key_totals', ['key_id', 'service_id']).sort()).toEqual([...KEY_COLUMNS].sort());
      expect(counters('probe_totals', ['key_id', 'location'])).toEqual(PROBE_COLUMNS);
      expect(counters('task_totals', ['operation', 'service_id'])).toEqual(TASK_COLUMNS);
    } finally {
      db.close();
    }
  });

  it('stay where they were when retention prunes every rollup row', async () => {
    const c = await collector();
    try {
      await c.send({ service: 'svc', instance: 'a' }, [
        transition(KEY, c.now - 3 * MIN, 'closed', 'open'),
        ...windows(KEY, c.now - 3 * MIN, c.now, { calls: 5, errors: { rate_limit: 1 } }),
      ]);
      await c.send({ service: 'prober', instance: 'eu' }, probes(KEY, 'eu-west', c.now - 3 * MIN, c.now, 'ok'));
      const before = await scrape(c);
      await createPruner(sqlOf(c.app), { rawDays: 7, rollupDays: 90, batchIdHours: 48, alertHistoryDays: 30, silenceDays: 7 }).prune(Date.now() + 91 * DAY);
      const minutes = sqlOf(c.app).prepare('SELECT (SELECT COUNT(*) FROM key_minutes) + (SELECT COUNT(*) FROM probe_minutes) AS n').get() as { n: number };
      expect(minutes.n).toBe(0);
      const after = await scrape(c);
      for (const [name, labels] of [
        ['breakerbox_calls_total', `${LABELS},service="svc"`],
        ['breakerbox_failed_calls_total', `${LABELS},service="svc",error_type="rate_limit"`],
        ['breakerbox_breaker_transitions_total', `${LABELS},to_state="open",reason="error_rate"`],
        ['breakerbox_probes_total', `${LABELS},location="eu-west",outcome="ok"`],
        ['breakerbox_call_duration_seconds_count', LABELS],
      ] as const) {
        expect(sample(before, name, labels), name).toBeGreaterThan(0);
        expect(sample(after, name, labels), name).toBe(sample(before, name, labels));
      }
    } finally {
      await c.close();
    }
  });

  it("start from an existing database's rollups when migration 006 is applied", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bbx-totals-'));
    try {
      // A database at migration 005 holding rollups for one key from two services and a probe location.
      const before = join(dir, 'migrations-005');
      mkdirSync(before);
      for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => f < '006')) copyFileSync(join(MIGRATIONS_DIR, f), join(before, f));
      const file = join(dir, 'bbx.db');
      const db = openDatabase(file);
      applyMigrations(db, before);
      const clockNow = Date.now();
      const minute = clockNow - (clockNow % MIN) - 10 * MIN;
      db.exec(`INSERT INTO keys (id, provider, endpoint, model, region, first_seen, last_seen) VALUES (1, 'mistral', 'chat', 'mistral-large', '', ${minute}, ${minute});
        INSERT INTO services (id, name) VALUES (1, 'svc'), (2, 'other');
        INSERT INTO sources (id, service_id, instance, first_seen, last_seen) VALUES (1, 1, 'a', ${minute}, ${minute});
        INSERT INTO key_minutes (key_id, service_id, minute, calls, ok, e_server, h3) VALUES (1, 1, ${minute}, 10, 8, 2, 10), (1, 1, ${minute + MIN}, 5, 5, 0, 5), (1, 2, ${minute}, 7, 7, 0, 7);
        INSERT INTO probe_minutes (key_id, location, minute, probes, ok, h4) VALUES (1, 'eu-west', ${minute}, 3, 3, 3);
        INSERT INTO transition_events (key_id, source_id, ts, from_state, to_state, reason) VALUES (1, 1, ${minute}, 'closed', 'open', 'error_rate'), (1, 1, ${minute}, NULL, 'closed', 'created');`);
      db.close();

      const c = await collector({ env: { BREAKERBOX_DB: file } });
      try {
        const page = await scrape(c);
        expect(sample(page, 'breakerbox_calls_total', `${LABELS},service="svc"`)).toBe(15);
        expect(sample(page, 'breakerbox_calls_total', `${LABELS},service="other"`)).toBe(7);
        expect(sample(page, 'breakerbox_failed_calls_total', `${LABELS},service="svc",error_type="server"`)).toBe(2);
        expect(sample(page, 'breakerbox_call_duration_seconds_count', LABELS)).toBe(22);
        expect(sample(page, 'breakerbox_probes_total', `${LABELS},location="eu-west",outcome="ok"`)).toBe(3);
        expect(sample(page, 'breakerbox_breaker_transitions_total', `${LABELS},to_state="open",reason="error_rate"`)).toBe(1);
        expect(page).not.toContain('reason="created"');
      } finally {
        await c.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
