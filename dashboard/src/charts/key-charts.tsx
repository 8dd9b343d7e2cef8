import { useMemo } from 'react';
import { Area, Line, ReferenceLine } from 'recharts';
import type { ErrorClass } from '@breakerbox/protocol';
import type { KeyDetailReply } from '../api/types.ts';
import { CLASS_COLOURS, SERIES_COLOURS, TimeChart } from './chart-kit.tsx';

// CLASS_COLOURS is a Record over every ErrorClass, so its keys are exactly the classes.
const CLASS_ORDER = Object.keys(CLASS_COLOURS) as ErrorClass[];
const STATE_COLOURS: Record<string, string> = { open: '#e5484d', forced_open: '#e5484d', half_open: '#ffc53d', closed: '#30a46c' };

type Row = Record<string, number | null> & { t: number };

/** Reshapes the key detail answer into one row per bucket, and probe rows per bucket. */
function prepare(detail: KeyDetailReply) {
  const classes = CLASS_ORDER.filter((c) => detail.series.some((p) => (p.errors[c] ?? 0) > 0));
  const rows: Row[] = detail.series.map((p) => {
    const row: Row = {
      t: p.t,
      slow_share: p.slow_share,
      open_share: p.open_share,
      rejected: p.rejected,
      short_circuited: p.short_circuited,
      fallback_invoked: p.fallback_invoked,
      fallback_failed: p.fallback_failed,
      half_open_ok: p.half_open_ok,
      half_open_failed: p.half_open_failed,
      p50: p.latency_ms.p50,
      p95: p.latency_ms.p95,
      p99: p.latency_ms.p99 ?? null,
      ttft_p50: p.ttft_ms?.p50 ?? null,
      ttft_p95: p.ttft_ms?.p95 ?? null,
    };
    for (const c of classes) row[`e_${c}`] = p.calls ? (p.errors[c] ?? 0) / p.calls : null;
    return row;
  });
  const locations = Object.keys(detail.probe_series).sort();
  const byT = new Map<number, Row>();
  for (const location of locations) {
    for (const point of detail.probe_series[location] ?? []) {
      const row: Row = byT.get(point.t) ?? ({ t: point.t } as Row);
      row[`ok_${location}`] = point.success_share;
      row[`p50_${location}`] = point.latency_ms.p50;
      row[`p95_${location}`] = point.latency_ms.p95;
      byT.set(point.t, row);
    }
  }
  const probeRows = [...byT.values()].sort((a, b) => a.t - b.t);
  const hasTtft = rows.some((r) => r.ttft_p50 !== null);
  return { classes, rows, locations, probeRows, hasTtft };
}

/**
 * The key's charts, all on one time axis (the window) with synchronised tooltips:
 * errors by class and slow share, probes per location, open share with transition
 * markers, rejections, fallbacks, half-open probes, latency percentiles.
 */
export function KeyCharts({ detail }: { detail: KeyDetailReply }) {
  const { classes, rows, locations, probeRows, hasTtft } = useMemo(() => prepare(detail), [detail]);
  const domain: [number, number] = [detail.window.from, detail.window.to];
  const common = { domain, syncId: 'key-detail' } as const;
  const markers = detail.transitions.slice(0, 200);
  const ceiling = Number(detail.config?.settings.latency_ceiling_ms) || undefined;
  // Drawn only when it fits near the data: a far-off ceiling would flatten every percentile.
  const slowest = Math.max(0, ...rows.map((r) => r.p99 ?? r.p95 ?? 0));
  const drawCeiling = ceiling !== undefined && ceiling <= slowest * 2;
  const ceilingText = ceiling === undefined ? '' : `; latency ceiling ${ceiling} ms${drawCeiling ? ' (red line)' : ', above the chart'}`;

  return (
    <div className="charts">
      <TimeChart {...common} name="errors" title="Client errors by class" description="share of calls; slow share as a line" data={rows} kind="share">
        {classes.map((c) => (
          <Area key={c} dataKey={`e_${c}`} name={c} stackId="errors" type="stepAfter" stroke={CLASS_COLOURS[c]} fill={CLASS_COLOURS[c]} fillOpacity={0.55} isAnimationActive={false} connectNulls={false} />
        ))}
        <Line dataKey="slow_share" name="slow" stroke="#8e8c99" strokeDasharray="4 3" dot={false} isAnimationActive={false} />
      </TimeChart>

      <TimeChart {...common} name="probe-success" title="Probe success" description={locations.length ? 'share of probes ok, per location' : 'no probes for this key'} data={probeRows} kind="share" yDomain={[0, 1]}>
        {locations.map((location, i) => (
          <Line key={location} dataKey={`ok_${location}`} name={location} stroke={SERIES_COLOURS[i % SERIES_COLOURS.length]} dot={probeRows.length < 40} isAnimationActive={false} />
        ))}
      </TimeChart>

      <TimeChart {...common} name="probe-latency" title="Probe latency" description="p50 solid, p95 dashed, per location" data={probeRows} kind="ms">
        {locations.flatMap((location, i) => [
          <Line key={`p50_${location}`} dataKey={`p50_${location}`} name={`${location} p50`} stroke={SERIES_COLOURS[i % SERIES_COLOURS.length]} dot={false} isAnimationActive={false} />,
          <Line key={`p95_${location}`} dataKey={`p95_${location}`} name={`${location} p95`} stroke={SERIES_COLOURS[i % SERIES_COLOURS.length]} strokeDasharray="4 3" dot={false} isAnimationActive={false} />,
        ])}
      </TimeChart>

      <TimeChart {...common} name="open-share" title="Breaker open" description="share of instance-time open or half-open; lines mark transitions (red open, amber half-open, green closed)" data={rows} kind="share" yDomain={[0, 1]}>
        <Area dataKey="open_share" name="open share" type="stepAfter" stroke="#e5484d" fill="#e5484d" fillOpacity={0.3} isAnimationActive={false} />
        {markers.map((tr, i) => (
          <ReferenceLine key={`${tr.ts}-${tr.instance}-${i}`} x={tr.ts} stroke={STATE_COLOURS[tr.to] ?? '#8e8c99'} strokeDasharray={tr.to === 'closed' ? '2 3' : undefined} ifOverflow="discard" />
        ))}
      </TimeChart>

      <TimeChart {...common} name="rejections" title="Bulkhead rejections and short-circuited calls" description="per bucket" data={rows} kind="count">
        <Area dataKey="rejected" name="bulkhead rejections" fill="#f76b15" type="stepAfter" stroke="#f76b15" fillOpacity={0.45} isAnimationActive={false} />
        <Area dataKey="short_circuited" name="short-circuited (open)" fill="#8e8c99" type="stepAfter" stroke="#8e8c99" fillOpacity={0.45} isAnimationActive={false} />
      </TimeChart>

      <TimeChart {...common} name="fallbacks" title="Fallbacks" description="invocations and failures of the services' operations" data={rows} kind="count">
        <Area dataKey="fallback_invoked" name="invoked" fill="#0090ff" type="stepAfter" stroke="#0090ff" fillOpacity={0.45} isAnimationActive={false} />
        <Area dataKey="fallback_failed" name="failed" fill="#e5484d" type="stepAfter" stroke="#e5484d" fillOpacity={0.45} isAnimationActive={false} />
      </TimeChart>

      <TimeChart {...common} name="half-open" title="Half-open probe calls" description="succeeded vs failed while half-open" data={rows} kind="count">
        <Area dataKey="half_open_ok" name="succeeded" stackId="ho" fill="#30a46c" type="stepAfter" stroke="#30a46c" fillOpacity={0.45} isAnimationActive={false} />
        <Area dataKey="half_open_failed" name="failed" stackId="ho" fill="#e5484d" type="stepAfter" stroke="#e5484d" fillOpacity={0.45} isAnimationActive={false} />
      </TimeChart>

      <TimeChart {...common} name="latency" title="Latency" description={`${hasTtft ? 'p50 / p95 / p99 and TTFT' : 'p50 / p95 / p99'}${ceilingText}`} data={rows} kind="ms">
        <Line dataKey="p50" name="p50" stroke="#30a46c" dot={false} isAnimationActive={false} />
        <Line dataKey="p95" name="p95" stroke="#ffc53d" dot={false} isAnimationActive={false} />
        <Line dataKey="p99" name="p99" stroke="#e5484d" dot={false} isAnimationActive={false} />
        {hasTtft ? <Line dataKey="ttft_p50" name="TTFT p50" stroke="#0090ff" strokeDasharray="4 3" dot={false} isAnimationActive={false} /> : null}
        {drawCeiling ? <ReferenceLine y={ceiling} stroke="#e5484d" strokeDasharray="6 3" label={{ value: `ceiling ${ceiling} ms`, fontSize: 11, fill: 'var(--muted)', position: 'insideTopRight' }} ifOverflow="extendDomain" /> : null}
        {hasTtft ? <Line dataKey="ttft_p95" name="TTFT p95" stroke="#8e4ec6" strokeDasharray="4 3" dot={false} isAnimationActive={false} /> : null}
      </TimeChart>
    </div>
  );
}
