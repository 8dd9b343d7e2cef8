import { api } from '../api/client.ts';
import type { ClientFigures, KeyDetailReply } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { KeyCharts } from '../charts/key-charts.tsx';
import { FailedCalls } from '../components/failed-calls.tsx';
import { FallbackHealthTable } from '../components/fallback-health.tsx';
import { FleetPanel } from '../components/fleet-panel.tsx';
import { Link } from '../components/link.tsx';
import { RefreshStatus } from '../components/refresh-status.tsx';
import { ServedChangeMarks, ServedChanges } from '../components/served-changes.tsx';
import { ShadowComparison } from '../components/shadow-comparison.tsx';
import { ProbeStatusBadge, StateBadge, VerdictBadge } from '../components/verdict-badge.tsx';
import { VerdictTimeline } from '../components/verdict-timeline.tsx';
import { WrongAnswerMarks, WrongAnswers, wrongAnswerRuns } from '../components/wrong-answers.tsx';
import { keyContext, keyFromParams, keyParams, ms, num, pct, usd, VERDICT_LOOK } from '../format.ts';
import { describeRange, formatDateTime, rangeToApi } from '../time-range.ts';
import { useUrlParams, viewHref } from '../url-state.ts';

function Figures({ c }: { c: ClientFigures }) {
  const items: [string, string][] = [
    ['calls', num(c.calls)],
    ['errors', `${pct(c.error_share)} (provider ${pct(c.provider_error_share)}, ours ${pct(c.client_error_share)})`],
    ['slow', pct(c.slow_share)],
    ['open share', pct(c.open_share)],
    ['transitions/h', num(c.transitions_per_hour, 1)],
    ['bulkhead rejections', `${num(c.rejected)} (${pct(c.rejection_share)})`],
    ['short-circuited', num(c.short_circuited)],
    ['retry ratio', pct(c.retry_ratio)],
    ['fallbacks', `${num(c.fallback.invoked)} invoked, ${num(c.fallback.failed)} failed`],
    ['half-open success', `${pct(c.half_open.success_share)} of ${num(c.half_open.ok + c.half_open.failed)}`],
    ['latency p50/p95/p99', `${ms(c.latency_ms.p50)} / ${ms(c.latency_ms.p95)} / ${ms(c.latency_ms.p99)}`],
    ['TTFT p50/p95/p99', `${ms(c.ttft_ms.p50)} / ${ms(c.ttft_ms.p95)} / ${ms(c.ttft_ms.p99)}`],
    ['cost', usd(c.cost_usd)],
    ['reporting', `${num(c.instances)} instances, ${num(c.services)} services`],
  ];
  return (
    <dl className="figures" aria-label="Figures over the window">
      {items.map(([name, value]) => <div key={name}><dt>{name}</dt><dd>{value}</dd></div>)}
    </dl>
  );
}

/**
 * One key: its verdict with the evidence in words, the verdict over time, time-aligned
 * charts, who reports it (services, instances) and its breaker configuration. The key comes
 * from the query string, so model ids with `/`, `:` or `@` survive a pasted link.
 */
export default function KeyDetail({ canAdmin = false }: { canAdmin?: boolean }) {
  const { params, range } = useUrlParams();
  const key = keyFromParams(params);
  const query = key ? { ...keyParams(key), ...rangeToApi(range) } : undefined;
  const polled = usePoll<KeyDetailReply | null>(
    (signal) => (query ? api('GET /api/key', { query, signal }) : Promise.resolve(null)),
    [JSON.stringify(query)],
  );
  const back = viewHref('/', range);
  if (!key) {
    return <p className="error-panel" role="alert">This link names no key (provider, endpoint and model are required). <Link href={back}>Back to the board</Link></p>;
  }
  const detail = polled.data;
  const wrong = detail ? wrongAnswerRuns(detail.probe_series, detail.step_ms) : [];
  const missing = polled.error?.kind === 'missing';

  return (
    <article className="key-detail" aria-labelledby="key-title">
      <p><Link href={back}>← Board</Link></p>
      <div className="view-head">
        <div>
          <h1 id="key-title" className="key-title">{key.model}</h1>
          <p className="muted">{keyContext(key)} · {describeRange(range)}</p>
        </div>
        <RefreshStatus polled={polled} />
      </div>
      {missing ? <p className="notice" role="status">This key has never reported to this collector.</p> : null}
      {polled.error && !detail && !missing && polled.error.kind !== 'unreachable' ? (
        <p className="error-panel" role="alert">Could not load this key: {polled.error.message}</p>
      ) : null}
      {detail ? (
        <div className={polled.error ? 'stale' : undefined}>
          <section className="verdict-panel" aria-label="Verdict">
            <VerdictBadge verdict={detail.verdict} hint={detail.hint} large />
            <p className="advice">{VERDICT_LOOK[detail.verdict].advice}</p>
            <StateBadge summary={detail.state.summary} text={detail.state.text} />
            <div className="probe-list">
              {Object.entries(detail.probes).map(([location, p]) => <ProbeStatusBadge key={location} location={location} status={p.status} />)}
            </div>
            <h2 className="sr-heading">Evidence</h2>
            <ul className="evidence" data-testid="evidence">
              {detail.evidence.map((line) => <li key={line}>{line}</li>)}
            </ul>
          </section>
          <FleetPanel fleetKey={key} canAdmin={canAdmin} />
          <Figures c={detail.clients} />
          <VerdictTimeline
            series={detail.series}
            stepMs={detail.step_ms}
            window={detail.window}
            marks={
              <>
                <WrongAnswerMarks runs={wrong} window={detail.window} />
                <ServedChangeMarks changes={detail.served_changes} window={detail.window} />
              </>
            }
          />
          <ServedChanges changes={detail.served_changes} />
          <WrongAnswers runs={wrong} window={detail.window} />
          <KeyCharts detail={detail} />
          <FailedCalls keyOf={key} range={rangeToApi(range)} />
          <ShadowComparison keyOf={key} range={rangeToApi(range)} />
          <Reporters detail={detail} />
        </div>
      ) : null}
    </article>
  );
}

function Reporters({ detail }: { detail: KeyDetailReply }) {
  return (
    <div className="reporters">
      <section aria-labelledby="services-title">
        <h2 id="services-title">Services</h2>
        <div className="table-wrap">
          <table>
            <thead><tr><th scope="col">service</th><th scope="col">instances</th><th scope="col">calls</th><th scope="col">errors</th><th scope="col">slow</th><th scope="col">rejected</th><th scope="col">retry ratio</th><th scope="col">degraded</th></tr></thead>
            <tbody>
              {detail.services.map((s) => (
                <tr key={s.service}><th scope="row">{s.service}</th><td>{num(s.instances)}</td><td>{num(s.calls)}</td><td>{pct(s.error_share)}</td><td>{pct(s.slow_share)}</td><td>{num(s.rejected)}</td><td>{pct(s.retry_ratio)}</td><td>{s.degraded ? '⚠ yes' : 'no'}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="instances-title">
        <h2 id="instances-title">Instances</h2>
        <div className="table-wrap">
          <table>
            <thead><tr><th scope="col">instance</th><th scope="col">state</th><th scope="col">since</th><th scope="col">calls</th><th scope="col">errors</th><th scope="col">last seen</th><th scope="col">sdk</th></tr></thead>
            <tbody>
              {detail.instances.map((i) => (
                <tr key={`${i.service}/${i.instance}`}>
                  <th scope="row">{i.service}/{i.instance}</th><td>{i.state ?? '–'}</td><td>{i.state_since ? formatDateTime(i.state_since) : '–'}</td>
                  <td>{num(i.calls)}</td><td>{pct(i.error_share)}{i.degraded ? ' ⚠' : ''}</td><td>{i.last_seen === null ? '–' : formatDateTime(i.last_seen)}</td><td>{i.sdk ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {detail.config ? (
        <section aria-labelledby="config-title">
          <h2 id="config-title">Breaker configuration</h2>
          <p className="muted">reported by {detail.config.service}/{detail.config.instance} at {formatDateTime(detail.config.ts)}</p>
          <dl className="figures">
            {Object.entries(detail.config.settings).map(([name, value]) => <div key={name}><dt>{name}</dt><dd>{String(value)}</dd></div>)}
          </dl>
          <p>Fallbacks, in order: {detail.config.fallbacks.length ? detail.config.fallbacks.map((k) => `${k.model} (${keyContext(k)})`).join(' → ') : 'none'}</p>
          <FallbackHealthTable fallbacks={detail.fallbacks ?? []} />
          {detail.config.warnings.map((w) => <p key={w} className="warning" role="note"><span aria-hidden="true">⚠</span> {w}</p>)}
        </section>
      ) : null}
      {detail.transitions.length ? (
        <section aria-labelledby="transitions-title">
          <h2 id="transitions-title">Transitions <span className="muted">(newest first)</span></h2>
          <ol className="transitions">
            {detail.transitions.slice(0, 30).map((t, i) => (
              <li key={`${t.ts}-${i}`}>{formatDateTime(t.ts)} · {t.service}/{t.instance}: {t.from ?? '–'} → <strong>{t.to}</strong> ({t.reason})</li>
            ))}
          </ol>
        </section>
      ) : null}
    </div>
  );
}
