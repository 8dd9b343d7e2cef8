/**
 * A writer for the Prometheus text exposition format 0.0.4 that hands its text out in
 * chunks, so a page of millions of lines is streamed and never held whole. Families are
 * written one at a time (the format wants a family's samples together); label sets are
 * pre-rendered strings so a key's labels are escaped once per scrape, not once per sample.
 */
export interface SampleSink {
  /** One sample line: `name{labels} value`; `labels` is pre-rendered (`a="x",b="y"`) or ''. */
  sample(name: string, labels: string, value: number): void;
}

/** Accumulates text; `take()` empties it. */
export class ExpositionChunks implements SampleSink {
  private text = '';
  /** Samples written since creation. */
  samples = 0;

  /** HELP and TYPE lines of a family; its samples follow. */
  family(name: string, type: 'gauge' | 'counter' | 'histogram', help: string): void {
    this.text += `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;
  }

  sample(name: string, labels: string, value: number): void {
    this.samples++;
    this.text += labels === '' ? `${name} ${formatValue(value)}\n` : `${name}{${labels}} ${formatValue(value)}\n`;
  }

  /** Raw text that is already in the exposition format (prom-client's part of the page). */
  raw(text: string): void {
    this.text += text;
  }

  /** Characters waiting to be taken. */
  get length(): number {
    return this.text.length;
  }

  take(): string {
    const out = this.text;
    this.text = '';
    return out;
  }
}

const NEEDS_ESCAPE = /[\\"\n]/;
/** Label values escape backslash, double quote and newline (most values have none: tested first). */
export const escapeLabel = (v: string): string =>
  NEEDS_ESCAPE.test(v) ? v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : v;

/** Renders `name="value"` pairs, values escaped; names must be valid label names. */
export function renderLabels(labels: Record<string, string>): string {
  let out = '';
  for (const name in labels) out += `${out === '' ? '' : ','}${name}="${escapeLabel(labels[name]!)}"`;
  return out;
}

/** Appends one more pair to pre-rendered labels. */
export const withLabel = (labels: string, name: string, value: string): string =>
  `${labels === '' ? '' : `${labels},`}${name}="${escapeLabel(value)}"`;

function formatValue(v: number): string {
  if (Number.isInteger(v)) return String(v);
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  // Sums of floats (cost) pick up binary noise; ten significant digits keep cents exact.
  return String(Number(v.toPrecision(10)));
}
