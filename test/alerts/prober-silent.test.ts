import { describe, expect, it } from 'vitest';
import { locationActivity } from '../../server/alerts/rules/prober-silent.ts';

const MIN = 60_000;

describe('locationActivity (a location\'s last probe and schedule interval)', () => {
  it('takes the last minute across its keys and the shortest per-key spacing as its interval', () => {
    const rows = [
      { keyId: 1, location: 'eu-west', firstMinute: 0, lastMinute: 50 * MIN, minutes: 11 }, // every 5 min
      { keyId: 2, location: 'eu-west', firstMinute: 10 * MIN, lastMinute: 40 * MIN, minutes: 31 }, // every minute
      { keyId: 1, location: 'us-east', firstMinute: 20 * MIN, lastMinute: 20 * MIN, minutes: 1 }, // one probe: unknown interval
    ];
    expect(locationActivity(rows)).toEqual([
      { location: 'eu-west', lastAt: 51 * MIN, intervalMs: MIN, keys: 2 },
      { location: 'us-east', lastAt: 21 * MIN, intervalMs: null, keys: 1 },
    ]);
  });

  it('never reads an interval shorter than the rollup\'s minute', () => {
    expect(locationActivity([{ keyId: 1, location: 'ap', firstMinute: 0, lastMinute: 2 * MIN, minutes: 3 }])[0]!.intervalMs).toBe(MIN);
  });
});
