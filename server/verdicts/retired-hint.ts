import type { BreakerKey } from '@breakerbox/protocol';
import type { RetirementCalendar } from '../lifecycle/calendar.ts';
import type { VerdictThresholds } from './figures.ts';
import type { Decision } from './rules.ts';
import type { ClientFigures } from './types.ts';

/**
 * A retired model answers 404 `model_not_found`, which the taxonomy counts as `bad_request`
 * ("our bug"): a key whose model the calendar retired by the window's end, self-inflicted
 * with bad_request dominating its failures, gets the hint `model_retired` instead of
 * `client_errors` — the request is not wrong, the model is gone (docs/lifecycle.md).
 */
export function retiredHint(d: Decision, c: ClientFigures, key: BreakerKey, calendar: RetirementCalendar | undefined, to: number, t: VerdictThresholds): Decision {
  if (!calendar || d.verdict !== 'self_inflicted' || c.failed === 0) return d;
  const r = calendar.of(key.provider, key.model);
  if (!r || r.shutdownAt > to) return d;
  const share = c.errors.bad_request / c.failed;
  if (share < t.hint_dominant_share) return d;
  return { ...d, hint: 'model_retired', retired: { shutdown: r.shutdown, successor: r.successor, link: r.link, bad_request_share: Number(share.toFixed(4)) } };
}
