/** The preset ranges of the picker, and what the API calls each one. */
export const PRESETS = ['15m', '1h', '6h', '24h', '7d'] as const;
export type Preset = (typeof PRESETS)[number];

const PRESET_MS: Record<Preset, number> = { '15m': 900_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000, '7d': 604_800_000 };

/** A time range: a preset ending now, or a fixed custom span. */
export type TimeRange = { kind: 'preset'; preset: Preset } | { kind: 'custom'; from: number; to: number };

const DEFAULT_PRESET: Preset = '1h';
export const DEFAULT_RANGE: TimeRange = { kind: 'preset', preset: DEFAULT_PRESET };

/** Reads the range from URL parameters (`range=6h`, or `from`/`to` in ms); falls back to 1 h. */
export function rangeFromParams(params: URLSearchParams): TimeRange {
  const from = Number(params.get('from'));
  const to = Number(params.get('to'));
  if (params.has('from') && params.has('to') && Number.isFinite(from) && Number.isFinite(to) && from < to) {
    return { kind: 'custom', from: Math.trunc(from), to: Math.trunc(to) };
  }
  const preset = params.get('range');
  return PRESETS.includes(preset as Preset) ? { kind: 'preset', preset: preset as Preset } : DEFAULT_RANGE;
}

/** The URL parameters that hold `range` (none for the default, so plain links stay plain). */
export function rangeToParams(range: TimeRange): Record<string, string | undefined> {
  if (range.kind === 'custom') return { from: String(range.from), to: String(range.to), range: undefined };
  return { range: range.preset === DEFAULT_PRESET ? undefined : range.preset, from: undefined, to: undefined };
}

/** The query parameters the read API takes for `range`. */
export function rangeToApi(range: TimeRange): { window?: string; from?: string; to?: string } {
  return range.kind === 'custom' ? { from: String(range.from), to: String(range.to) } : { window: range.preset };
}

/** The concrete span of `range` at `now`, for chart axes. */
export function rangeSpan(range: TimeRange, now = Date.now()): { from: number; to: number } {
  return range.kind === 'custom' ? { from: range.from, to: range.to } : { from: now - PRESET_MS[range.preset], to: now };
}

/** "last 1 h", or the custom span in local time. */
export function describeRange(range: TimeRange): string {
  if (range.kind === 'preset') return `last ${range.preset.replace(/(\d+)/, '$1 ')}`;
  return `${formatDateTime(range.from)} – ${formatDateTime(range.to)}`;
}

/** Local date and time, minutes precision. */
export function formatDateTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** Local time of day, seconds precision. */
export function formatTime(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** A duration in words: "3 min", "2 h 5 min". */
export function formatDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
