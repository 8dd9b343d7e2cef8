import { api } from '../api/client.ts';
import type { LifecycleModel } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { Link } from '../components/link.tsx';
import { RefreshStatus } from '../components/refresh-status.tsx';
import { ShadowComparison } from '../components/shadow-comparison.tsx';
import { keyParams, num, usd } from '../format.ts';
import { hrefOf } from '../router.ts';

const STATUS_WORDS: Record<LifecycleModel['status'], string> = {
  retired: 'retired',
  critical: 'retiring soon',
  warning: 'retiring',
  scheduled: 'scheduled',
  no_date: 'no date known',
};

function daysText(m: LifecycleModel): string {
  if (m.days_left === null) return '–';
  // days_left rounds up: 0 is "retired less than a day ago", 1 "retires within a day".
  if (m.days_left === 0) return 'retired within the last day';
  if (m.days_left < 0) return `retired ${-m.days_left} day${m.days_left === -1 ? '' : 's'} ago`;
  return m.days_left === 1 ? 'within a day' : `${m.days_left} days`;
}

function sourceWords(source: NonNullable<LifecycleModel['retirement']>['source'], readOn: string | null): string {
  if (source === 'provider') return 'provider (Sunset header)';
  if (source === 'shipped') return readOn ? `shipped, read ${readOn}` : 'shipped';
  return 'operator';
}

function ModelRow({ m }: { m: LifecycleModel }) {
  const r = m.retirement;
  const tone = m.status === 'retired' || m.status === 'critical' ? 'bad' : m.status === 'warning' ? 'warning' : undefined;
  return (
    <tr data-testid="lifecycle-model" data-status={m.status}>
      <th scope="row">
        <span className="muted">{m.provider}</span> {m.model}
        <div className="muted">{m.keys.map((k) => <Link key={`${k.endpoint}/${k.region ?? ''}`} href={hrefOf('/key', keyParams(k))}>{k.endpoint}{k.region ? ` · ${k.region}` : ''}</Link>)}</div>
      </th>
      <td>{num(m.calls_per_day)}</td>
      <td>{usd(m.cost_per_day_usd)}</td>
      <td>{m.services.join(', ')}</td>
      <td>{r ? r.shutdown : '–'}</td>
      <td className={tone}>{daysText(m)}</td>
      <td className={tone}>{STATUS_WORDS[m.status]}</td>
      <td>{r?.successor ?? '–'}</td>
      <td>
        {r?.link ? <a href={r.link} rel="noreferrer" target="_blank">{sourceWords(r.source, r.read_on)}</a> : r ? sourceWords(r.source, null) : '–'}
        {/* The provider's own Deprecation / Sunset headers, whether or not the calendar has a date. */}
        {m.provider_signal ? <div className="muted" data-testid="provider-signal">{m.provider_signal.text}</div> : null}
      </td>
    </tr>
  );
}

/**
 * The models in use with their retirement dates (docs/lifecycle.md): a retirement is a
 * scheduled outage, so the soonest comes first, with who still calls it and what replaces it.
 */
export default function Lifecycle() {
  const polled = usePoll((signal) => api('GET /api/lifecycle', { signal }), []);
  const data = polled.data;
  return (
    <section aria-labelledby="lifecycle-title">
      <div className="view-head">
        <h1 id="lifecycle-title">Lifecycle <span className="muted">· models called in the last {data?.days ?? 7} days</span></h1>
        <RefreshStatus polled={polled} />
      </div>
      {polled.error && !data && polled.error.kind !== 'unreachable' ? <p className="error-panel" role="alert">Could not load the lifecycle view: {polled.error.message}</p> : null}
      {data && data.models.length === 0 ? <p className="notice">No model was called in this span.</p> : null}
      {data && data.models.length > 0 ? (
        <div className={polled.error ? 'stale' : undefined}>
          <p className="muted">
            Retirement calendar: {data.calendar.configured} operator entr{data.calendar.configured === 1 ? 'y' : 'ies'}, {data.calendar.shipped} shipped. The{' '}
            <code>model_retiring</code> alert warns {data.warning_days} days ahead and turns critical {data.critical_days} days ahead.
          </p>
          <table aria-label="models in use">
            <thead>
              <tr>
                <th scope="col">model</th><th scope="col">calls / day</th><th scope="col">cost / day</th><th scope="col">services</th>
                <th scope="col">retires</th><th scope="col">days left</th><th scope="col">status</th><th scope="col">successor</th><th scope="col">source</th>
              </tr>
            </thead>
            <tbody>{data.models.map((m) => <ModelRow key={`${m.provider}\n${m.model}`} m={m} />)}</tbody>
          </table>
        </div>
      ) : null}
      {/* Every primary → candidate pair with shadow traffic, over the page's 7 days: the successor's figures beside the model's. */}
      <div data-testid="shadow-comparison-slot">
        <ShadowComparison range={{ window: '7d' }} />
      </div>
    </section>
  );
}
