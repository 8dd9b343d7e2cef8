import { describe, expect, it } from 'vitest';
import { probesPage } from '../../server/query/probe-pages.ts';
import { pageRequest } from '../../server/query/pagination.ts';
import type { ProbesView } from '../../server/verdicts/probes-view.ts';

type Location = ProbesView['locations'][number];
const location = (name: string, targets: number): Location => ({
  location: name, last_ts: null, on_demand: null,
  health: { location: name, status: 'healthy', keys: targets, failing_keys: 0, failing_providers: [], network_share: null, reason: null },
  targets: Array.from({ length: targets }, (_, i) => ({ key: { provider: 'p', endpoint: 'chat', model: `m-${i}` }, figures: {} as never, last: null, recent: [] })),
});
const view: ProbesView = { window: { from: 0, to: 3_600_000 }, locations: [location('ap-south', 3), location('eu-west', 0), location('us-east', 2)] };
const paging = { defaultLimit: 2, maxLimit: 10 };

describe('probesPage', () => {
  it('lists a location without targets (on-demand counts only) once, on the first page, in its place', () => {
    const first = probesPage(view, pageRequest({}, paging));
    expect(first.locations.map((l) => [l.location, l.targets.length])).toEqual([['ap-south', 2], ['eu-west', 0]]);
    expect(first.total).toBe(5);
    const second = probesPage(view, pageRequest({ cursor: first.next_cursor! }, paging));
    expect(second.locations.map((l) => [l.location, l.targets.length])).toEqual([['ap-south', 1], ['us-east', 1]]);
    const third = probesPage(view, pageRequest({ cursor: second.next_cursor! }, paging));
    expect(third.locations.map((l) => [l.location, l.targets.length])).toEqual([['us-east', 1]]);
    expect(third.next_cursor).toBeNull();
  });
});
