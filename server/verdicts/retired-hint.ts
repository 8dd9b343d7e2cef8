import type { BreakerKey } from '@breakerbox/protocol';
import type { RetirementCalendar } from '../lifecycle/calendar.ts';
import { signalText, type ModelSignal } from '../lifecycle/provider-signals.ts';
import type { VerdictThresholds } from './figures.ts';
import type { Decision } from './rules.ts';
import type { ClientFigures } from './types.ts';

/** The calendar (with the providers' Sunset dates) and the providers' signals per model, for one pass. */
export interface RetirementSources {
  calendar: RetirementCalendar;
  /** By `provider\nmodel`. */
  signals: ReadonlyMap<string, ModelSignal>;
}

/**
 * A retired model answers 404 `model_not_found`, which the taxonomy counts as `bad_request`
 * ("our bug"): a key self-inflicted with bad_request dominating its failures gets the hint
 * `model_retired` instead of `client_errors` when its model was retired by the window's end —
 * on the calendar, or on the provider's own `Sunset` date — or when its answers carried the
 * provider's `Deprecation` / `Sunset` headers at all: the request is not wrong, the model is
 * gone (docs/lifecycle.md).
 */
export function retiredHint(d: Decision, c: ClientFigures, key: BreakerKey, sources: RetirementSources | undefined, to: number, t: VerdictThresholds): Decision {
  if (!sources || d.verdict !== 'self_inflicted' || c.failed === 0) return d;
  const r = sources.calendar.of(key.provider, key.model);
  const signal = sources.signals.get(`${key.provider}\n${key.model}`);
  const dated = r !== null && r.shutdownAt <= to;
  if (!dated && !(signal && signal.lastSeen <= to)) return d;
  const share = c.errors.bad_request / c.failed;
  if (share < t.hint_dominant_share) return d;
  const fromSignal = !dated || r.source === 'provider';
  return {
    ...d,
    hint: 'model_retired',
    retired: {
      shutdown: dated ? r.shutdown : null,
      successor: dated ? r.successor : null,
      link: dated ? r.link : null,
      bad_request_share: Number(share.toFixed(4)),
      ...(fromSignal && signal ? { signal: signalText(signal) } : {}),
    },
  };
}
