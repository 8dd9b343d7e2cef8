/**
 * Durations in the config file: a number of milliseconds, or a string such as
 * `250ms`, `30s`, `5m`, `2h`, `1d`. One parser so every field reads them the same way.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_RE = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/** Parses a duration; returns `undefined` when the value is not one. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = DURATION_RE.exec(value.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** Formats milliseconds for humans: `1m`, `30s`, `1.5s`, `250ms`. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] as number;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  if (ms >= 1_000) return `${(ms / 1_000).toFixed(1)}s`;
  return `${ms}ms`;
}
