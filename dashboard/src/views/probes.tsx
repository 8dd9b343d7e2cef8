import { api } from '../api/client.ts';
import type { ProbeResult } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { Link } from '../components/link.tsx';
import { RefreshStatus } from '../components/refresh-status.tsx';
import { ProbeStatusBadge } from '../components/verdict-badge.tsx';
import { keyContext, keyParams, ms, pct } from '../format.ts';
import { describeRange, formatDateTime, formatTime, rangeToApi } from '../time-range.ts';
import { useUrlParams, viewHref } from '../url-state.ts';

const OUTCOME_ICON: Record<ProbeResult['outcome'], string> = { ok: '✔', slow: '◔', error: '✖', wrong_answer: '≠' };

function Outcome({ result }: { result: Pick<ProbeResult, 'outcome' | 'error_class' | 'status' | 'answer_excerpt' | 'message'> }) {
  const what = result.outcome === 'error' ? `${result.error_class ?? 'error'}${result.status ? ` ${result.status}` : ''}` : result.outcome === 'wrong_answer' ? 'wrong answer' : result.outcome;
  // A wrong answer shows what came back (redacted by the prober) and what the canary expected.
  const title = result.outcome === 'wrong_answer' ? `${result.message ?? ''}${result.answer_excerpt !== undefined ? ` — answered: ${result.answer_excerpt}` : ''}` : undefined;
  return <span className={`outcome outcome-${result.outcome}`} title={title}><span aria-hidden="true">{OUTCOME_ICON[result.outcome]}</span> {what}</span>;
}

/** Every probe target per location: status, success share, latency, last results; misconfigured probes called out first. */
export default function Probes() {
  const { range } = useUrlParams();
  const polled = usePoll((signal) => api('GET /api/probes', { query: rangeToApi(range), signal }), [JSON.stringify(range)]);
  const data = polled.data;
  const misconfigured = data?.locations.flatMap((l) => l.targets.filter((t) => t.figures.status === 'misconfigured').map((t) => ({ location: l.location, target: t }))) ?? [];

  return (
    <section aria-labelledby="probes-title">
      <div className="view-head">
        <h1 id="probes-title">Probes <span className="muted">· {describeRange(range)}</span></h1>
        <RefreshStatus polled={polled} />
      </div>
      {polled.error && !data && polled.error.kind !== 'unreachable' ? <p className="error-panel" role="alert">Could not load probes: {polled.error.message}</p> : null}
      {misconfigured.length ? (
        <section className="warning-panel" role="note" aria-labelledby="misconfigured-title">
          <h2 id="misconfigured-title"><span aria-hidden="true">⚙</span> {misconfigured.length} misconfigured probe{misconfigured.length > 1 ? 's' : ''}</h2>
          <p>These probes mostly get <code>bad_request</code> or <code>auth</code> answers: the probe is wrong, not the provider. Their results do not count as provider health.</p>
          <ul>
            {misconfigured.map(({ location, target }) => (
              <li key={`${location}-${target.key.model}-${keyContext(target.key)}`}>
                {target.key.model} ({keyContext(target.key)}) from {location}{target.last ? <>: last <Outcome result={target.last} /></> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {data && data.locations.length === 0 ? (
        <p className="notice">No probe results in this range. Run <code>breakerbox probe --config probe.yaml</code> on any host, pointed at this server; see the board's empty state for a configuration example.</p>
      ) : null}
      <div className={polled.error ? 'stale' : undefined}>
        {data?.locations.map((l) => (
          <section key={l.location} aria-labelledby={`loc-${l.location}`} data-testid="probe-location">
            <h2 id={`loc-${l.location}`}>{l.location} <span className="muted">· last result {l.last_ts ? formatDateTime(l.last_ts) : 'never'}</span></h2>
            {l.health?.status === 'unhealthy' ? (
              <p className="warning-panel" role="note" data-testid="location-unhealthy"><span aria-hidden="true">⚠</span> Unhealthy prober location: {l.health.reason}</p>
            ) : null}
            <div className="table-wrap">
              <table>
                <thead><tr><th scope="col">target</th><th scope="col">status</th><th scope="col">ok</th><th scope="col">p50 / p95</th><th scope="col">last</th><th scope="col">recent (newest first)</th></tr></thead>
                <tbody>
                  {l.targets.map((t) => (
                    <tr key={JSON.stringify(t.key)}>
                      <th scope="row"><Link href={viewHref('/key', range, keyParams(t.key))}>{t.key.model}</Link><div className="muted">{keyContext(t.key)}</div></th>
                      <td><ProbeStatusBadge status={t.figures.status} /></td>
                      <td>{pct(t.figures.success_share)} of {t.figures.probes}</td>
                      <td>{ms(t.figures.latency_ms.p50)} / {ms(t.figures.latency_ms.p95)}</td>
                      <td>{t.last ? <><Outcome result={t.last} /> <span className="muted">{formatTime(t.last.ts)}, {ms(t.last.latency_ms.total)}</span>{t.last.upstream_request_id ? <> <code className="request-id" title="the provider's request id of this failed probe">{t.last.upstream_request_id}</code></> : null}</> : '–'}</td>
                      <td className="recent">
                        {t.recent.map((r) => (
                          <span key={r.ts} className={`dot outcome-${r.outcome}`} title={`${formatTime(r.ts)}: ${r.outcome}${r.error_class ? ` (${r.error_class})` : ''}, ${ms(r.total_ms)}${r.error_type ?? r.error_code ? `, ${r.error_type ?? r.error_code}` : ''}${r.upstream_request_id ? `, request id ${r.upstream_request_id}` : ''}${r.answer_excerpt !== undefined ? `, answered: ${r.answer_excerpt}` : ''}`}>{OUTCOME_ICON[r.outcome]}</span>
                        ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        ))}
      </div>
      {data?.next_cursor ? (
        <p className="notice" data-testid="probes-more">
          Showing the first {data.locations.reduce((n, l) => n + l.targets.length, 0)} of {data.total} probe targets (one page of <code>/api/probes</code>, <code>api.default_limit</code>).
        </p>
      ) : null}
    </section>
  );
}
