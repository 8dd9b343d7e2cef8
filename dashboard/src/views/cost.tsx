import { Area, Line } from 'recharts';
import { api } from '../api/client.ts';
import type { CostOperation } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { TimeChart } from '../charts/chart-kit.tsx';
import { RefreshStatus } from '../components/refresh-status.tsx';
import { num, pct, usd } from '../format.ts';
import { describeRange, rangeToApi } from '../time-range.ts';
import { useUrlParams } from '../url-state.ts';

const LEVELS = ['0', '1', '2', '3', '4'] as const;
const LEVEL_COLOURS = ['#30a46c', '#0090ff', '#8e4ec6', '#f76b15', '#e5484d'];
const LEVEL_NAMES = ['primary', 'fallback 1', 'fallback 2', 'fallback 3', 'degraded (4)'];

function Operation({ op, domain }: { op: CostOperation; domain: [number, number] }) {
  const rows = op.series.map((p) => ({
    t: p.t,
    cost_per_success: p.cost_per_success,
    baseline: p.baseline,
    ...Object.fromEntries(LEVELS.map((l) => [`l${l}`, p.levels[l] ?? null])),
  }));
  const rising = op.ratio !== null && op.ratio > 2;
  return (
    <section className="cost-op" aria-labelledby={`op-${op.operation}`} data-testid="cost-operation">
      <h2 id={`op-${op.operation}`}>{op.operation} <span className="muted">· {op.services.join(', ')}</span></h2>
      <dl className="figures">
        <div><dt>cost per successful task</dt><dd className={rising ? 'bad' : undefined}>{usd(op.cost_per_success)}{rising ? ' ⚠' : ''}</dd></div>
        <div><dt>baseline (24 h before)</dt><dd>{usd(op.baseline.cost_per_success)}</dd></div>
        <div><dt>ratio to baseline</dt><dd>{op.ratio === null ? '–' : `${op.ratio.toFixed(2)}×`}</dd></div>
        <div><dt>completed / failed</dt><dd>{num(op.completed)} / {num(op.failed)}</dd></div>
        <div><dt>degraded answers (level 4)</dt><dd className={op.degraded ? 'bad' : undefined}>{num(op.degraded)}</dd></div>
        <div><dt>attempts</dt><dd>{num(op.attempts)}</dd></div>
        <div><dt>spend</dt><dd>{usd(op.cost_usd)}</dd></div>
        <div><dt>fallbacks</dt><dd>{num(op.fallback.invoked)} invoked, {num(op.fallback.failed)} failed</dd></div>
        <div><dt>served by level</dt><dd>{LEVELS.map((l) => `${l}: ${pct(op.levels[l])}`).join(' · ')}</dd></div>
      </dl>
      <div className="charts">
        <TimeChart name="cost-per-success" title="Cost per successful task" description="against its trailing 24 h baseline (dashed)" data={rows} domain={domain} kind="usd" syncId={`cost-${op.operation}`}>
          <Line dataKey="cost_per_success" name="cost per success" stroke="#0090ff" dot={false} isAnimationActive={false} />
          <Line dataKey="baseline" name="baseline" stroke="#8e8c99" strokeDasharray="5 4" dot={false} isAnimationActive={false} />
        </TimeChart>
        <TimeChart name="levels" title="Tasks served at each failover level" description="share of served tasks" data={rows} domain={domain} kind="share" yDomain={[0, 1]} syncId={`cost-${op.operation}`}>
          {[0, 1, 2, 3, 4].map((l) => (
            <Area key={l} dataKey={`l${l}`} name={LEVEL_NAMES[l]} stackId="levels" type="stepAfter" stroke={LEVEL_COLOURS[l]} fill={LEVEL_COLOURS[l]} fillOpacity={0.6} isAnimationActive={false} />
          ))}
        </TimeChart>
      </div>
    </section>
  );
}

/** Cost per successful task per operation against its baseline, and failover level shares. */
export default function Cost() {
  const { range } = useUrlParams();
  const polled = usePoll((signal) => api('GET /api/cost', { query: rangeToApi(range), signal }), [JSON.stringify(range)]);
  const data = polled.data;
  return (
    <section aria-labelledby="cost-title">
      <div className="view-head">
        <h1 id="cost-title">Cost <span className="muted">· {describeRange(range)}</span></h1>
        <RefreshStatus polled={polled} />
      </div>
      {polled.error && !data && polled.error.kind !== 'unreachable' ? <p className="error-panel" role="alert">Could not load cost: {polled.error.message}</p> : null}
      {data && data.operations.length === 0 ? (
        <p className="notice">No task outcomes in this range. Operations appear when the SDK reports <code>tasks</code> events (one per operation per interval).</p>
      ) : null}
      <div className={polled.error ? 'stale' : undefined}>
        {data?.operations.map((op) => <Operation key={op.operation} op={op} domain={[data.window.from, data.window.to]} />)}
      </div>
    </section>
  );
}
