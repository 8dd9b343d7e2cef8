import type { PassthroughEntry } from '../api/types.ts';

/** Families listed per service; the rest are summed into "and N more". */
const SHOWN_PER_SERVICE = 3;

/**
 * Requests the SDKs forwarded unprotected in the range (`passthrough` of `/api/keys`): one
 * line per service that had any, with its largest host + path families. No key stands for
 * this traffic, so without this line it would pass unseen. Nothing is rendered without any.
 */
export function PassthroughNotice({ entries }: { entries: PassthroughEntry[] }) {
  if (entries.length === 0) return null;
  const byService = new Map<string, PassthroughEntry[]>();
  for (const e of entries) byService.set(e.service, [...(byService.get(e.service) ?? []), e]);
  const services = [...byService].map(([service, list]) => ({ service, list, total: list.reduce((n, e) => n + e.requests, 0) }))
    .sort((a, b) => b.total - a.total || a.service.localeCompare(b.service));
  return (
    <section className="notice passthrough" aria-label="Unprotected requests" data-testid="passthrough">
      <h2><span aria-hidden="true">⚠</span> Requests passing the SDK unprotected</h2>
      <ul>
        {services.map(({ service, list, total }) => (
          <li key={service} data-service={service}>
            <strong>{service}</strong>: {total} request{total === 1 ? '' : 's'} with no breaker, retry, fallback or key —{' '}
            {list.slice(0, SHOWN_PER_SERVICE).map((e, i) => (
              <span key={`${e.host} ${e.path_family} ${e.method}`}>
                {i > 0 ? '; ' : ''}<code>{e.method} {e.host}{e.path_family}</code> ×{e.requests}{e.why ? <span className="muted"> ({e.why})</span> : null}
              </span>
            ))}
            {list.length > SHOWN_PER_SERVICE ? <span className="muted"> and {list.length - SHOWN_PER_SERVICE} more</span> : null}
          </li>
        ))}
      </ul>
      <p className="muted">The application logs a <code>BB_WARN_SDK_PASSTHROUGH</code> warning per family saying how to protect it (sdk/README.md, "What bb.fetch protects").</p>
    </section>
  );
}
