import type { ProbesView } from '../verdicts/probes-view.ts';
import { page, type PageRequest } from './pagination.ts';
import type { ProbesPage } from '../schemas/probes.ts';

type Location = ProbesView['locations'][number];

/** One page of `GET /api/probes`: the view's targets, paged as one list, grouped by location again. */
export type { ProbesPage } from '../schemas/probes.ts';

/**
 * Pages the probe view by target, in its order (location, then key): a fleet probed from
 * many locations grows by targets, not locations, so a page of whole locations could still
 * be unbounded. A location whose targets span two pages is listed on both, with the same
 * `last_ts`, `health` and `on_demand` (judged over all of its targets, not the page's).
 */
export function probesPage(view: ProbesView, request: PageRequest): ProbesPage {
  const flat = view.locations.flatMap((location) => location.targets.map((target) => ({ location, target })));
  const { items, next_cursor, total } = page(flat, request, view.window);
  const locations: Location[] = [];
  for (const { location, target } of items) {
    let last = locations.at(-1);
    if (last?.location !== location.location) locations.push((last = { ...location, targets: [] }));
    last.targets.push(target);
  }
  // A location with nothing to page (on-demand counts, no results yet) is listed on the first page.
  if (request.offset === 0) {
    const empty = view.locations.filter((l) => l.targets.length === 0);
    if (empty.length > 0) {
      const order = new Map(view.locations.map((l, i) => [l.location, i]));
      locations.push(...empty);
      locations.sort((a, b) => order.get(a.location)! - order.get(b.location)!);
    }
  }
  return { window: view.window, locations, next_cursor, total };
}
