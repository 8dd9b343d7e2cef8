import { describe, expect, it } from 'vitest';
import { loadCalendar } from '../../server/lifecycle/calendar.ts';
import { keysInUse } from '../../server/lifecycle/models-in-use.ts';
import { MIN, collector, windows } from '../verdicts/support.ts';

const DAY = 86_400_000;
const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };

describe('keysInUse (what the rule and /metrics read at every pass)', () => {
  it('reads no rollups for dated keys when no known key has a calendar entry, and only dated keys when one has', async () => {
    const c = await collector();
    try {
      await c.send({ service: 'svc', instance: 'i' }, windows(KEY, c.now - 5 * MIN, c.now, { calls: 2 }));
      let reads = 0;
      const rollups = c.app.storage.rollups;
      const storage = {
        telemetry: c.app.storage.telemetry,
        rollups: { ...rollups, keyServiceSums: (...args: Parameters<typeof rollups.keyServiceSums>) => (reads++, rollups.keyServiceSums(...args)) },
      };
      const undated = loadCalendar({ shipped_calendar: false, retirements: [{ provider: 'openai', model: 'gpt-3.5-*', shutdown: '2030-01-01' }] });
      expect(await keysInUse(storage, undated, c.now - 7 * DAY, c.now, { datedOnly: true })).toEqual([]);
      expect(reads).toBe(0);
      // The view lists every key in use, dated or not: it reads.
      expect((await keysInUse(storage, undated, c.now - 7 * DAY, c.now)).map((k) => [k.key.model, k.calls, k.retirement])).toEqual([['gpt-4o-mini', 60, null]]);
      expect(reads).toBe(1);

      const dated = loadCalendar({ shipped_calendar: false, retirements: [{ provider: 'openai', model: 'gpt-4o-mini', shutdown: '2030-01-01' }] });
      const found = await keysInUse(storage, dated, c.now - 7 * DAY, c.now, { datedOnly: true });
      expect(found.map((k) => [k.key.model, k.services, k.retirement?.shutdown])).toEqual([['gpt-4o-mini', ['svc'], '2030-01-01']]);
    } finally {
      await c.close();
    }
  });
});
