import type { StoredAlert } from '../storage/storage.ts';
import { matches, type AlertLabels, type Silence } from './silences.ts';
import type { AlertView } from './types.ts';

/** The labels silences match on. */
export function labelsOf(a: Pick<AlertView, 'rule' | 'key' | 'location' | 'operation' | 'severity' | 'fingerprint'>): AlertLabels {
  return {
    rule: a.rule, provider: a.key?.provider ?? '', endpoint: a.key?.endpoint ?? '', model: a.key?.model ?? '', region: a.key?.region ?? '',
    location: a.location ?? '', operation: a.operation ?? '', severity: a.severity, fingerprint: a.fingerprint,
  };
}

/** Stage 4, pure: an alert as the API and the notifiers see it, marked silenced by the active silences that match it. */
export function silenced(a: StoredAlert, silences: Silence[]): AlertView {
  const { keyId: _keyId, ...rest } = a;
  const by = silences.filter((s) => matches(s.matchers, labelsOf(a))).map((s) => s.id);
  return { ...rest, silenced: by.length > 0, silenced_by: by };
}
