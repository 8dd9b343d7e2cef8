import type { Incident } from '../api/types.ts';
import { keyContext, keyParams } from '../format.ts';
import { rangeToApi, type TimeRange } from '../time-range.ts';
import { viewHref } from '../url-state.ts';
import { Link } from './link.tsx';
import { VerdictBadge } from './verdict-badge.tsx';

const CAUSE_WORDS: Record<Incident['cause']['kind'], string> = { provider: 'provider', prober: 'prober location', service: 'our service' };

/**
 * The incidents the board leads with: one card per cause (a provider across its models, a
 * prober location, a service), its verdict, its keys and the figures behind it.
 * `selected` (from `?incident=`, the link in a notification) is opened and marked.
 */
export function IncidentList({ incidents, range, selected }: { incidents: Incident[]; range: TimeRange; selected: string | null }) {
  if (incidents.length === 0) return <p className="incidents incidents-none" data-testid="incidents"><span aria-hidden="true">✔</span> No incident.</p>;
  return (
    <section className="incidents" aria-label={`${incidents.length} incidents`} data-testid="incidents">
      <h2>{incidents.length} incident{incidents.length > 1 ? 's' : ''}</h2>
      <ul>
        {incidents.map((incident) => (
          <li key={incident.id} className={`incident incident-${incident.cause.kind}${selected === incident.id ? ' selected' : ''}`} data-testid="incident" data-incident={incident.id} data-cause={incident.cause.kind} data-verdict={incident.verdict}>
            <details open={selected === incident.id || incidents.length <= 3}>
              <summary>
                <strong className="incident-title">{incident.title}</strong>{' '}
                {incident.verdict === 'prober_unhealthy' ? (
                  <span className="verdict verdict-prober" data-verdict="prober_unhealthy"><span aria-hidden="true">⚠</span> Prober unhealthy: its probes are set aside</span>
                ) : (
                  <VerdictBadge verdict={incident.verdict} hint={incident.hint} />
                )}{' '}
                <span className="muted">{CAUSE_WORDS[incident.cause.kind]} {incident.cause.name} · {incident.keys.length} key{incident.keys.length > 1 ? 's' : ''}</span>
              </summary>
              <ul className="incident-evidence">
                {incident.evidence.slice(0, 3).map((line) => <li key={line}>{line}</li>)}
              </ul>
              <ul className="incident-keys">
                {incident.keys.map((k) => (
                  <li key={JSON.stringify(k.key)}>
                    <Link href={viewHref('/key', range, keyParams(k.key))}>{k.key.model}</Link> <span className="muted">({keyContext(k.key)})</span> <VerdictBadge verdict={k.verdict} hint={k.hint} />
                  </li>
                ))}
              </ul>
              {incident.cause.kind === 'provider' ? (
                <p><a href={`/api/incidents/${incident.id}/ticket?${new URLSearchParams(rangeToApi(range))}`} target="_blank" rel="noreferrer">Provider ticket</a> <span className="muted">(plain text for the provider's support: request ids, times, status codes)</span></p>
              ) : null}
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
