import type { FallbackHealth } from '../api/types.ts';
import { keyContext, num, pct } from '../format.ts';
import { formatDateTime } from '../time-range.ts';

/**
 * How proven each fallback of a key is: its success over the range (exercise traffic and
 * failovers alike) and the largest share of this key's volume it has carried — a fallback
 * that never carried more than 1% has not been shown to hold the load; one without calls
 * is untested.
 */
export function FallbackHealthTable({ fallbacks }: { fallbacks: FallbackHealth[] }) {
  if (!fallbacks.length) return null;
  return (
    <div className="table-wrap">
      <table data-testid="fallback-health">
        <caption className="sr-heading">Fallback health</caption>
        <thead><tr><th scope="col">fallback</th><th scope="col">requests</th><th scope="col">success</th><th scope="col">largest share of this key carried</th></tr></thead>
        <tbody>
          {fallbacks.map((f) => (
            <tr key={`${f.key.provider}/${f.key.model}/${f.key.region ?? ''}`} data-model={f.key.model}>
              <th scope="row">{f.key.model} <span className="muted">({keyContext(f.key)})</span></th>
              <td>{num(f.calls)}</td>
              <td>{f.success_share === null ? <span className="warning">untested</span> : pct(f.success_share)}</td>
              <td>{f.max_share_of_primary === null ? '–' : `${pct(f.max_share_of_primary)}${f.max_share_at ? ` at ${formatDateTime(f.max_share_at)}` : ''}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
