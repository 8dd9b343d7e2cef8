import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPruner } from '../../server/storage/sqlite/retention.ts';
import { batch, makeApp, oneOfEach, rowCounts } from './helpers.ts';
import { sqlOf } from '../support/sql.ts';

const DAY = 86_400_000;
let t: Awaited<ReturnType<typeof makeApp>>;
beforeEach(async () => {
  t = await makeApp();
});
afterEach(async () => {
  await t.close();
});

describe('retention', () => {
  it('prunes raw events past their retention in small steps and keeps rollups longer', async () => {
    for (let i = 0; i < 5; i++) {
      await t.app.inject({
        method: 'POST', url: '/v1/telemetry',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
        payload: JSON.stringify(batch(oneOfEach())),
      });
    }
    const pruner = createPruner(sqlOf(t.app), { rawDays: 7, rollupDays: 90, batchIdHours: 48, alertHistoryDays: 30, silenceDays: 7 }, { stepRows: 2 });
    expect((await pruner.prune(Date.now())).deleted.window_events).toBe(0);

    const { deleted } = await pruner.prune(Date.now() + 8 * DAY);
    expect(deleted).toMatchObject({ window_events: 5, transition_events: 5, task_events: 5, config_events: 5, probe_events: 5, key_minutes: 0, batches: 5 });
    const kept = rowCounts(t.app);
    expect(kept).toMatchObject({ window_events: 0, probe_events: 0 });
    // The events span one or two minutes depending on when the test runs.
    for (const table of ['key_minutes', 'probe_minutes', 'task_minutes']) expect(kept[table]).toBeGreaterThan(0);

    await pruner.prune(Date.now() + 91 * DAY);
    expect(rowCounts(t.app)).toMatchObject({ key_minutes: 0, probe_minutes: 0, task_minutes: 0 });
  });
});
