/**
 * A small writer for the Prometheus text exposition format 0.0.4: one HELP and TYPE line
 * per family, samples grouped under it, label values escaped.
 */
export class Exposition {
  private readonly families = new Map<string, { help: string; type: 'gauge' | 'counter'; lines: string[] }>();

  /** Declares a metric family; samples are added with `sample`. */
  family(name: string, type: 'gauge' | 'counter', help: string): this {
    if (!this.families.has(name)) this.families.set(name, { help, type, lines: [] });
    return this;
  }

  /** Adds a sample; null, NaN and infinite values are left out (no data is not zero). */
  sample(name: string, labels: Record<string, string>, value: number | null | undefined): this {
    const family = this.families.get(name);
    if (!family) throw new Error(`undeclared metric family ${name}`);
    if (value === null || value === undefined || !Number.isFinite(value)) return this;
    const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
    family.lines.push(`${name}${pairs.length ? `{${pairs.join(',')}}` : ''} ${formatValue(value)}`);
    return this;
  }

  /** The page: families in declaration order, each with its samples. */
  toString(): string {
    const out: string[] = [];
    for (const [name, f] of this.families) {
      out.push(`# HELP ${name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${name} ${f.type}`, ...f.lines);
    }
    return `${out.join('\n')}\n`;
  }
}

/** Label values escape backslash, double quote and newline. */
export const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function formatValue(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(10)));
}
