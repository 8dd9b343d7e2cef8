/**
 * The protocol package's lists are the one definition the rest agrees with: the rollup
 * tables the migrations create have exactly the rollup columns, and the schema accepts
 * exactly the taxonomy's classes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CLASSES, KEY_COLUMNS, PROBE_COLUMNS, ProbeSchema, SOURCE_COLUMNS, TASK_COLUMNS, TASK_KEY_COLUMNS, WindowSchema,
} from '@breakerbox/protocol';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { applyMigrations } from '../../server/storage/sqlite/migrations.ts';
import { validateBatch } from '../../server/ingest/validate-batch.ts';
import { batch, tempDir, windowEvent } from '../server/helpers.ts';

describe('one definition of the rollup columns', () => {
  it('every rollup table the migrations create has exactly the protocol package\'s counter columns', () => {
    const tmp = tempDir();
    try {
      const db = openDatabase(join(tmp.dir, 'cols.db'));
      applyMigrations(db);
      const counters = (table: string, ids: string[]) =>
        (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name).filter((n) => !ids.includes(n));
      // Columns are read and written by name: a later migration's column (e_unclassified) sits
      // last in the table and in the error block of KEY_COLUMNS.
      const sorted = (names: readonly string[]) => [...names].sort();
      expect(sorted(counters('key_minutes', ['minute', 'key_id', 'service_id']))).toEqual(sorted(KEY_COLUMNS));
      expect(sorted(counters('key_hours', ['hour', 'key_id', 'service_id']))).toEqual(sorted(KEY_COLUMNS));
      expect(sorted(counters('key_totals', ['key_id', 'service_id']))).toEqual(sorted(KEY_COLUMNS));
      expect(counters('task_minutes', ['minute', 'operation', 'service_id'])).toEqual(TASK_COLUMNS);
      expect(counters('task_key_minutes', ['minute', 'key_id', 'service_id'])).toEqual(TASK_KEY_COLUMNS);
      expect(counters('key_minute_sources', ['minute', 'key_id', 'source_id'])).toEqual(SOURCE_COLUMNS);
      expect(counters('probe_minutes', ['minute', 'key_id', 'location'])).toEqual(PROBE_COLUMNS);
      expect(counters('probe_hours', ['hour', 'key_id', 'location'])).toEqual(PROBE_COLUMNS);
      db.close();
    } finally {
      tmp.cleanup();
    }
  });
});

describe('one definition of the taxonomy', () => {
  it('the schemas accept exactly the taxonomy\'s classes', () => {
    const probeClasses = (ProbeSchema.properties.error_class.anyOf as { const: string }[]).map((s) => s.const);
    expect(probeClasses).toEqual([...ERROR_CLASSES]);
    expect(Object.keys(WindowSchema.properties.errors.properties)).toEqual([...ERROR_CLASSES]);
  });

  it('refuses a window error class outside the taxonomy, naming it, instead of counting it in one table and not another', () => {
    const bounds = { oldest: 0, newest: Date.now() + 60_000 };
    const bad = windowEvent({ calls: 200, ok: 1, errors: { overloaded: 1 } as never });
    expect(() => validateBatch(batch([bad]), bounds)).toThrow(expect.objectContaining({ path: expect.stringContaining('/events/0/errors') }));
    expect(validateBatch(batch([windowEvent({ calls: 200, ok: 100, errors: { server: 1 } })]), bounds).events).toHaveLength(1);
  });
});
