import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { usePoll } from '../api/use-poll.ts';
import type { Verdict } from '../api/types.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { FiringAlerts } from '../components/firing-alerts.tsx';
import { IncidentList } from '../components/incident-list.tsx';
import { KeyTile } from '../components/key-tile.tsx';
import { PassthroughNotice } from '../components/passthrough-notice.tsx';
import { RefreshStatus } from '../components/refresh-status.tsx';
import { VERDICT_LOOK, VERDICT_RANK } from '../format.ts';
import { describeRange } from '../time-range.ts';
import { useUrlParams } from '../url-state.ts';
import { loadBoard, type Tile } from './board-data.ts';

/** Arrow keys, Home and End move focus between the tiles' links (Tab still walks them in order). */
function moveFocus(event: KeyboardEvent<HTMLUListElement>) {
  const links = [...event.currentTarget.querySelectorAll<HTMLAnchorElement>('a.tile-link')];
  const at = links.indexOf(document.activeElement as HTMLAnchorElement);
  if (at < 0) return;
  const next =
    event.key === 'ArrowRight' || event.key === 'ArrowDown' ? at + 1
    : event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? at - 1
    : event.key === 'Home' ? 0
    : event.key === 'End' ? links.length - 1
    : null;
  if (next === null) return;
  event.preventDefault();
  links[Math.max(0, Math.min(links.length - 1, next))]?.focus();
}

const VERDICTS = (Object.keys(VERDICT_RANK) as Verdict[]).sort((a, b) => VERDICT_RANK[a] - VERDICT_RANK[b]);

function matches(tile: Tile, filters: { provider: string; model: string; service: string; verdict: string }): boolean {
  if (filters.provider && tile.key.provider !== filters.provider) return false;
  if (filters.verdict && tile.verdict !== filters.verdict) return false;
  if (filters.model && !tile.key.model.toLowerCase().includes(filters.model.toLowerCase())) return false;
  if (filters.service && !(tile.entry.services ?? []).includes(filters.service)) return false;
  return true;
}

/**
 * The board: incidents first (keys grouped by cause), then firing alerts, then every key as
 * a tile, worst first, filters held
 * in the URL. Refreshes every 10 s and says when it last did, or that the server stopped.
 */
export function Board() {
  const { params, range, setParams } = useUrlParams();
  const rangeKey = JSON.stringify(range);
  const polled = usePoll((signal) => loadBoard(range, signal), [rangeKey]);
  const filters = {
    provider: params.get('provider') ?? '',
    model: params.get('model') ?? '',
    service: params.get('service') ?? '',
    verdict: params.get('verdict') ?? '',
  };
  const tiles = polled.data?.tiles;
  const shown = useMemo(() => (tiles ?? []).filter((t) => matches(t, filters)), [tiles, filters.provider, filters.model, filters.service, filters.verdict]); // eslint-disable-line react-hooks/exhaustive-deps
  const providers = useMemo(() => [...new Set((tiles ?? []).map((t) => t.key.provider))].sort(), [tiles]);
  const services = useMemo(() => [...new Set((tiles ?? []).flatMap((t) => t.entry.services ?? []))].sort(), [tiles]);
  const counts = useMemo(() => {
    const c = new Map<Verdict, number>();
    for (const t of tiles ?? []) c.set(t.verdict, (c.get(t.verdict) ?? 0) + 1);
    return c;
  }, [tiles]);
  const modelInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!tiles) return;
    // Render budget instrumentation: data ready → tiles committed and painted.
    const frame = requestAnimationFrame(() => setTimeout(() => performance.mark('bb:board-painted'), 0));
    return () => cancelAnimationFrame(frame);
  }, [tiles]);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.key === '/' && !(target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
        event.preventDefault();
        modelInput.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const set = (name: string, value: string) => setParams({ [name]: value || undefined }, { replace: true });
  const filtered = Object.values(filters).some(Boolean);

  return (
    <section aria-labelledby="board-title" className="board">
      <div className="view-head">
        <h1 id="board-title">Board <span className="muted">· {describeRange(range)}</span></h1>
        <RefreshStatus polled={polled} />
      </div>
      {polled.error && !polled.data && polled.error.kind !== 'unreachable' ? (
        <p className="error-panel" role="alert">Could not load the board: {polled.error.message}</p>
      ) : null}
      {polled.data?.hasVerdicts ? <IncidentList incidents={polled.data.incidents} range={range} selected={params.get('incident')} /> : null}
      {polled.data ? <FiringAlerts alerts={polled.data.firing} range={range} /> : null}
      {polled.data ? <PassthroughNotice entries={polled.data.passthrough} /> : null}
      {tiles && tiles.length === 0 ? <EmptyState origin={window.location.origin} /> : null}
      {tiles && tiles.length > 0 ? (
        <>
          <p className="verdict-counts" aria-label="Keys by verdict">
            {VERDICTS.filter((v) => counts.get(v)).map((v) => (
              <button key={v} type="button" className={`count-chip verdict-${v}`} aria-pressed={filters.verdict === v} onClick={() => set('verdict', filters.verdict === v ? '' : v)}>
                <span aria-hidden="true">{VERDICT_LOOK[v].icon}</span> {counts.get(v)} {VERDICT_LOOK[v].word.toLowerCase()}
              </button>
            ))}
          </p>
          <form className="filters" role="search" aria-label="Filter keys" onSubmit={(e) => e.preventDefault()}>
            <label>Provider
              <select value={filters.provider} onChange={(e) => set('provider', e.target.value)}>
                <option value="">all</option>
                {providers.map((p) => <option key={p} value={p}>{p}</option>)}
              </select>
            </label>
            <label>Model
              <input ref={modelInput} type="search" placeholder="contains… (press /)" value={filters.model} onChange={(e) => set('model', e.target.value)} />
            </label>
            {services.length ? (
              <label>Service
                <select value={filters.service} onChange={(e) => set('service', e.target.value)}>
                  <option value="">all</option>
                  {services.map((s) => <option key={s} value={s}>{s}</option>)}
                </select>
              </label>
            ) : null}
            <label>Verdict
              <select value={filters.verdict} onChange={(e) => set('verdict', e.target.value)}>
                <option value="">all</option>
                {VERDICTS.map((v) => <option key={v} value={v}>{VERDICT_LOOK[v].word}</option>)}
              </select>
            </label>
            {filtered ? (
              <button type="button" className="link-button" onClick={() => setParams({ provider: undefined, model: undefined, service: undefined, verdict: undefined }, { replace: true })}>
                Clear filters
              </button>
            ) : null}
            <span className="muted" aria-live="polite">{shown.length} of {tiles.length} keys</span>
          </form>
          {!polled.data?.hasVerdicts ? <p className="notice">This server does not answer /api/verdicts: verdicts are not shown.</p> : null}
          {shown.length ? (
            <ul className={`tiles${polled.error ? ' stale' : ''}`} data-testid="board" onKeyDown={moveFocus} aria-label="Keys, worst first (arrow keys move between tiles)">
              {shown.map((tile) => <KeyTile key={tile.id} tile={tile} range={range} />)}
            </ul>
          ) : (
            <p className="notice">No key matches these filters.</p>
          )}
        </>
      ) : null}
    </section>
  );
}
