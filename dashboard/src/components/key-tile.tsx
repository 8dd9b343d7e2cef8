import { memo } from 'react';
import { keyContext, keyParams, ms, num, pct } from '../format.ts';
import type { TimeRange } from '../time-range.ts';
import { viewHref } from '../url-state.ts';
import type { Tile } from '../views/board-data.ts';
import { Link } from './link.tsx';
import { ProbeStatusBadge, StateBadge, VerdictBadge } from './verdict-badge.tsx';

/**
 * One breaker key on the board: model and where it runs, the verdict in words, breaker
 * state across instances, and the numbers on-call checks first. The whole tile is one
 * link to the key's detail, so Tab walks the board tile by tile.
 */
export const KeyTile = memo(function KeyTile({ tile, range }: { tile: Tile; range: TimeRange }) {
  const { key, entry, figures } = tile;
  const clients = figures?.clients;
  const headline = entry.headline;
  const openShare = clients?.open_share ?? headline?.open_share ?? null;
  const transitions = clients?.transitions_per_hour ?? headline?.transitions_per_hour ?? null;
  const rejected = clients?.rejected ?? headline?.rejected;
  const fallbackFailed = clients?.fallback.failed ?? headline?.fallback_failed;
  const errorShare = clients?.error_share ?? headline?.error_share ?? null;
  const calls = clients?.calls ?? headline?.calls;
  const p95 = clients?.latency_ms.p95 ?? headline?.p95_ms ?? null;
  const label = `${key.model}, ${keyContext(key)}`;

  return (
    <li className={`tile tile-${tile.verdict}`} data-testid="key-tile" data-model={key.model} data-verdict={tile.verdict} data-probe-only={tile.hint === 'probe_only' ? 'true' : undefined}>
      <Link href={viewHref('/key', range, keyParams(key))} className="tile-link" aria-label={`${label}: details`}>
        <span className="tile-model">{key.model}</span>
        <span className="tile-context">{keyContext(key)}</span>
      </Link>
      <VerdictBadge verdict={tile.verdict} hint={tile.hint} />
      <div className="tile-state">
        {entry.state ? <StateBadge summary={entry.state.summary} text={entry.state.text} /> : <span className="muted">no breaker state reported</span>}
        {tile.alerts.length ? (
          <span className="tile-alerts"><span aria-hidden="true">▲</span> {tile.alerts.length} alert{tile.alerts.length > 1 ? 's' : ''} firing</span>
        ) : null}
      </div>
      {tile.hint === 'probe_only' ? <p className="tile-note" data-testid="probe-only">No client traffic in this range: the verdict rests on the probes alone.</p> : null}
      <dl className="tile-figures">
        <div><dt>open</dt><dd>{pct(openShare)}</dd></div>
        <div><dt>transitions/h</dt><dd>{num(transitions, 1)}</dd></div>
        <div><dt>rejections</dt><dd>{num(rejected)}</dd></div>
        <div><dt>fallback fails</dt><dd className={fallbackFailed ? 'bad' : undefined}>{num(fallbackFailed)}</dd></div>
        <div><dt>errors</dt><dd>{pct(errorShare)}</dd></div>
        <div><dt>calls</dt><dd>{num(calls)}</dd></div>
        <div><dt>p95</dt><dd>{ms(p95)}</dd></div>
      </dl>
      <div className="tile-probes" aria-label="Probes">
        {tile.probes.length ? (
          tile.probes.map(([location, probe]) => <ProbeStatusBadge key={location} location={location} status={probe.status} setAside={probe.set_aside} />)
        ) : (
          <span className="muted">no probes</span>
        )}
      </div>
    </li>
  );
});
