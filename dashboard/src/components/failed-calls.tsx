import { useState } from 'react';
import { api } from '../api/client.ts';
import type { BreakerKey, SamplesReply } from '../api/types.ts';
import { usePoll } from '../api/use-poll.ts';
import { keyParams, ms } from '../format.ts';
import { formatDateTime } from '../time-range.ts';

/** Most samples the table loads for a window. */
const LIMIT = 200;

type Row = SamplesReply['samples'][number];
const classOf = (r: Row) => r.sample.error_class ?? 'slow';
const unique = (values: string[]) => [...new Set(values)].sort();

/** A request id with a button that copies it (for the provider ticket). */
function RequestId({ id }: { id: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(id).then(() => setCopied(true), () => setCopied(false));
  };
  return (
    <span className="request-id">
      <code>{id}</code>{' '}
      <button type="button" className="link-button" onClick={copy} aria-label={`Copy request id ${id}`}>{copied ? 'copied' : 'copy'}</button>
    </span>
  );
}

/**
 * The key's failed (and slow) calls over the window, newest first: time, class, status,
 * the provider's error and message, and its request id, copyable — the evidence a provider's
 * support asks for. Filterable by class, service and instance.
 */
export function FailedCalls({ keyOf, range }: { keyOf: BreakerKey; range: Record<string, string> }) {
  const query = { ...keyParams(keyOf), ...range, limit: LIMIT };
  const polled = usePoll<SamplesReply>((signal) => api('GET /api/key/samples', { query, signal }), [JSON.stringify(query)]);
  const [filter, setFilter] = useState({ cls: '', service: '', instance: '' });
  const rows = polled.data?.samples ?? [];
  const shown = rows.filter((r) => (!filter.cls || classOf(r) === filter.cls) && (!filter.service || r.service === filter.service) && (!filter.instance || r.instance === filter.instance));
  const set = (name: keyof typeof filter, value: string) => setFilter((f) => ({ ...f, [name]: value }));
  const select = (name: keyof typeof filter, label: string, values: string[]) => (
    <label>{label}
      <select value={filter[name]} onChange={(e) => set(name, e.target.value)}>
        <option value="">all</option>
        {values.map((v) => <option key={v} value={v}>{v}</option>)}
      </select>
    </label>
  );
  return (
    <section aria-labelledby="failed-calls-title" className="failed-calls">
      <h2 id="failed-calls-title">Failed calls <span className="muted">(samples sent by the SDK, newest first)</span></h2>
      {polled.error && !polled.data ? <p className="error-panel" role="alert">Could not load the samples: {polled.error.message}</p> : null}
      {polled.data && rows.length === 0 ? <p className="muted">No failed or slow call was sampled in this window.</p> : null}
      {rows.length > 0 ? (
        <>
          <form className="filters" role="search" aria-label="Filter failed calls" onSubmit={(e) => e.preventDefault()}>
            {select('cls', 'Class', unique(rows.map(classOf)))}
            {select('service', 'Service', unique(rows.map((r) => r.service)))}
            {select('instance', 'Instance', unique(rows.map((r) => r.instance)))}
          </form>
          <div className="table-wrap">
            <table data-testid="failed-calls">
              <thead><tr><th scope="col">time</th><th scope="col">class</th><th scope="col">status</th><th scope="col">provider error</th><th scope="col">request id</th><th scope="col">attempt</th><th scope="col">duration</th><th scope="col">from</th></tr></thead>
              <tbody>
                {shown.map((r, i) => {
                  const s = r.sample;
                  const providerError = [s.error_type, s.error_code].filter(Boolean).join(' / ');
                  return (
                    <tr key={`${s.ts}-${i}`}>
                      <td>{formatDateTime(s.ts)}</td>
                      <td>{classOf(r)}{s.broke_at ? ` (${s.broke_at.replaceAll('_', ' ')})` : ''}</td>
                      <td>{s.status ?? '–'}</td>
                      <td>{providerError || '–'}{s.message ? <div className="muted">{s.message}</div> : null}</td>
                      <td>{s.upstream_request_id ? <RequestId id={s.upstream_request_id} /> : '–'}</td>
                      <td>{s.attempt}{s.level ? ` (level ${s.level})` : ''}</td>
                      <td>{ms(s.duration_ms)}</td>
                      <th scope="row">{r.service}/{r.instance}</th>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
