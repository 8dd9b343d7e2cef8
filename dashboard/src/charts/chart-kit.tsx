import type { ReactNode } from 'react';
import { CartesianGrid, ComposedChart, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import type { ErrorClass } from '@breakerbox/protocol';
import { ms, num, pct } from '../format.ts';

/** Colours per error class: warm for provider-side classes, cool for our own faults. */
export const CLASS_COLOURS: Record<ErrorClass, string> = {
  server: '#e5484d',
  timeout: '#f76b15',
  network: '#ffc53d',
  rate_limit: '#d6409f',
  stream_broken: '#ab4aba',
  unclassified: '#8a8a8a',
  quota: '#3e63dd',
  bad_request: '#0090ff',
  auth: '#00a2c7',
  context_length: '#12a594',
  policy: '#30a46c',
  truncated: '#8e8c99',
  invalid_output: '#5b5bd6',
};

/** A stable colour for the n-th series (probe locations, operations). */
export const SERIES_COLOURS = ['#0090ff', '#f76b15', '#30a46c', '#d6409f', '#ffc53d', '#12a594', '#8e4ec6', '#e5484d'];

export type ValueKind = 'share' | 'count' | 'ms' | 'usd';

const formatters: Record<ValueKind, (v: number) => string> = {
  share: (v) => pct(v),
  count: (v) => num(v, 1),
  ms: (v) => ms(v),
  // Per-task costs are fractions of a cent: two significant digits keep ticks distinct.
  usd: (v) => (v !== 0 && Math.abs(v) < 1 ? `$${Number(v.toPrecision(2))}` : `$${v.toFixed(2)}`),
};

/** Axis tick for a time, with the date only when the span crosses days. */
export function timeTick(spanMs: number) {
  return (t: number) =>
    new Date(t).toLocaleString(undefined, spanMs > 86_400_000 ? { month: 'short', day: 'numeric', hour: '2-digit' } : { hour: '2-digit', minute: '2-digit' });
}

/**
 * One chart on the shared time axis: same domain, margins and y-axis width for every
 * chart of a page, synchronised tooltips (`syncId`), no animation (a 3 a.m. page must not
 * wiggle). Children are recharts series (Area, Line, Bar, ReferenceLine).
 */
export function TimeChart(props: {
  title: string;
  description?: string;
  name: string;
  data: object[];
  domain: [number, number];
  kind: ValueKind;
  syncId?: string;
  height?: number;
  yDomain?: [number | 'auto', number | 'auto'];
  children: ReactNode;
}) {
  const format = formatters[props.kind];
  const span = props.domain[1] - props.domain[0];
  return (
    <figure className="chart" data-testid="chart" data-chart={props.name}>
      <figcaption>
        <strong>{props.title}</strong>
        {props.description ? <span className="muted"> — {props.description}</span> : null}
      </figcaption>
      <ComposedChart
        responsive
        style={{ width: '100%', height: props.height ?? 170 }}
        data={props.data}
        syncId={props.syncId}
        syncMethod="value"
        margin={{ top: 6, right: 12, bottom: 0, left: 0 }}
        accessibilityLayer
      >
        <CartesianGrid strokeDasharray="3 3" stroke="var(--grid)" />
        <XAxis dataKey="t" type="number" scale="time" domain={props.domain} allowDataOverflow tickFormatter={timeTick(span)} stroke="var(--axis)" fontSize={11} minTickGap={40} />
        <YAxis width={56} stroke="var(--axis)" fontSize={11} tickFormatter={format} domain={props.yDomain ?? [0, 'auto']} allowDecimals={props.kind !== 'count'} />
        <Tooltip
          labelFormatter={(t) => new Date(Number(t)).toLocaleString()}
          formatter={(value) => (typeof value === 'number' ? format(value) : String(value))}
          contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--text)' }}
          isAnimationActive={false}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {props.children}
      </ComposedChart>
    </figure>
  );
}
