import type { BreakerKey } from '@breakerbox/protocol';
import type { RetirementCalendar } from '../lifecycle/calendar.ts';
import { modelId, signalText, type ModelSignal } from '../lifecycle/provider-signals.ts';
import type { VerdictThresholds } from './figures.ts';
import type { Decision } from './rules.ts';
import type { ClientFigures } from './types.ts';
import type { SamplesPart } from '../storage/storage.ts';

/** How many of a key's latest bad_request samples are looked at for a 404 `model_not_found`. */
const NOT_FOUND_SAMPLES = 5;

/**
 * Whether the key's bad_request failures in `[from, to)` are the provider's 404
 * `model_not_found`, by its latest samples; undefined when none were kept (or no sample store).
 */
export async function failsNotFound(samples: SamplesPart | undefined, keyId: number, from: number, to: number): Promise<boolean | undefined> {
  if (!samples) return undefined;
  const kept = await samples.forKey(keyId, { from, to, limit: NOT_FOUND_SAMPLES, errorClass: 'bad_request' });
  if (kept.length === 0) return undefined;
  return kept.some(({ sample: s }) => s.status === 404 || s.error_code === 'model_not_found');
}

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
 * gone (docs/lifecycle.md). Without a date passed, a deprecated model can still answer, so a
 * signal alone needs the failures to be the provider's 404: `notFound` reads the key's
 * bad_request samples (false: samples kept and none is a 404 `model_not_found`; undefined:
 * none kept, the share decides as for a date).
 */
export async function retiredHint(
  d: Decision,
  c: ClientFigures,
  key: BreakerKey,
  sources: RetirementSources | undefined,
  to: number,
  t: VerdictThresholds,
  notFound: () => Promise<boolean | undefined>,
): Promise<Decision> {
  if (!sources || d.verdict !== 'self_inflicted' || c.failed === 0) return d;
  const r = sources.calendar.of(key.provider, key.model);
  const signal = sources.signals.get(modelId(key.provider, key.model));
  const dated = r !== null && r.shutdownAt <= to;
  if (!dated && !(signal && signal.lastSeen <= to)) return d;
  const share = c.errors.bad_request / c.failed;
  if (share < t.hint_dominant_share) return d;
  if (!dated && (await notFound()) === false) return d;
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
