import { api } from '../api/client.ts';
import type { BreakerKey, ShadowPair, ShadowReply, ShadowSideFigures } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { keyContext, keyParams, ms, num, pct, usd } from '../format.ts';

type Share = ShadowSideFigures['error_share'];

/** A share with its interval and sample size ("4.2% (2.1–7.9%, n 412)"). */
function share(s: Share): string {
  if (!s) return '–';
  return `${pct(s.value)} (${pct(s.low)}–${pct(s.high)}, n ${num(s.n)})`;
}

const ROWS: [string, (s: ShadowSideFigures) => string, string?][] = [
  ['error share', (s) => share(s.error_share), 'error_share'],
  ['truncation share', (s) => share(s.truncation_share), 'truncation_share'],
  ['refusal share', (s) => share(s.refusal_share), 'refusal_share'],
  ['JSON-valid share', (s) => share(s.json_valid_share), 'json_valid_share'],
  ['validation pass share', (s) => share(s.validation_pass_share), 'validation_pass_share'],
  ['latency p50 / p95', (s) => `${ms(s.latency_p50_ms)} / ${ms(s.latency_p95_ms)}`],
  ['TTFT p50 / p95', (s) => (s.ttft_answers ? `${ms(s.ttft_p50_ms)} / ${ms(s.ttft_p95_ms)}` : 'not streamed')],
  ['output tokens per call', (s) => num(s.output_tokens_per_call, 1)],
  ['cost per call', (s) => usd(s.cost_per_call_usd)],
];

/** A tested share difference in words. */
function difference(d: ShadowPair['differences'][number]): string {
  if (d.primary === d.shadow) return 'no difference';
  if (d.z === null) return 'too few to test';
  return `${d.significant ? 'significant' : 'not significant'} (z ${num(d.z, 2)})`;
}

function PairTable({ pair }: { pair: ShadowPair }) {
  const sig = new Map(pair.differences.map((d) => [d.metric, d]));
  const title = `${pair.key.model} → ${pair.candidate.model}`;
  return (
    <div className="shadow-pair" data-testid="shadow-pair">
      <h3>{title} <span className="muted">({keyContext(pair.candidate)})</span></h3>
      <p className="shadow-bill" data-testid="shadow-bill"><strong>{pair.bill_statement}</strong>
        {pair.bill ? <span className="muted"> — {usd(pair.bill.primary_usd_per_month)} → {usd(pair.bill.projected_usd_per_month)} / month at {num(pair.bill.primary_calls_per_month)} calls</span> : null}
      </p>
      <p className="muted">{num(pair.pairs)} mirrored requests{pair.dropped ? `, ${num(pair.dropped)} shed under load` : ''} · from {pair.services.join(', ') || '–'}</p>
      <div className="table-wrap">
        <table aria-label={`Shadow comparison ${title}`}>
          <thead><tr><th scope="col">property</th><th scope="col">{pair.key.model} (primary)</th><th scope="col">{pair.candidate.model} (candidate)</th><th scope="col">difference</th></tr></thead>
          <tbody>
            {ROWS.map(([label, cell, metric]) => {
              const d = metric ? sig.get(metric) : undefined;
              return (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  <td>{cell(pair.primary)}</td>
                  <td>{cell(pair.shadow)}</td>
                  <td>{d ? difference(d) : '–'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {pair.not_significant.length ? (
        <ul className="shadow-caveats" aria-label="Not yet significant">
          {pair.not_significant.map((line) => <li key={line}>{line}</li>)}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * Shadow traffic compared (`GET /api/shadow`): per primary → candidate pair, both sides'
 * shares, latency, cost per call and the projected monthly bill, with the sample size and
 * what is not yet significant. With `keyOf`, only that primary key's pairs (the key page);
 * nothing is drawn while there are none.
 */
export function ShadowComparison({ keyOf, range }: { keyOf?: BreakerKey; range: Record<string, string> }) {
  const query = { ...(keyOf ? keyParams(keyOf) : {}), ...range };
  const polled = usePoll<ShadowReply>((signal) => api('GET /api/shadow', { query, signal }), [JSON.stringify(query)]);
  const pairs = polled.data?.pairs ?? [];
  if (!pairs.length && !(polled.error && !polled.data)) return null;
  return (
    <section aria-labelledby="shadow-title" className="shadow-comparison">
      <h2 id="shadow-title">Shadow traffic <span className="muted">(the same requests, sent to a candidate model)</span></h2>
      {polled.error && !polled.data ? <p className="error-panel" role="alert">Could not load the shadow comparison: {polled.error.message}</p> : null}
      {pairs.map((p) => <PairTable key={`${p.key.model}\u0000${p.candidate.provider}\u0000${p.candidate.model}`} pair={p} />)}
      {polled.data ? <p className="muted small">{polled.data.method}</p> : null}
    </section>
  );
}
