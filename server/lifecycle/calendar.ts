import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from '../config/load.ts';
import { RetirementEntrySchema, type Config } from '../config/schema.ts';
import shippedFile from './retirements.json' with { type: 'json' };
import { shutdownAt } from './shutdown-date.ts';

const DAY = 86_400_000;

/** Where the shipped calendar lives in the repository, for error messages and docs. */
export const SHIPPED_CALENDAR_PATH = 'server/lifecycle/retirements.json';

/** A shipped entry: an operator entry plus the day its source page was read (and its link is required). */
const ShippedEntry = Type.Composite([
  Type.Omit(RetirementEntrySchema, ['link']),
  Type.Object({ link: Type.String({ pattern: '^https://' }), read_on: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }) }),
], { additionalProperties: false });

/** The shipped file: what it is, which pages were read, and the entries read there. */
const ShippedCalendar = Type.Object({
  about: Type.String(),
  sources: Type.Array(Type.Object({ provider: Type.String(), url: Type.String({ pattern: '^https://' }), read_on: Type.String(), note: Type.String() }, { additionalProperties: false })),
  retirements: Type.Array(ShippedEntry),
}, { additionalProperties: false });
type ShippedCalendar = Static<typeof ShippedCalendar>;

/** One retirement as the collector uses it. */
export interface Retirement {
  provider: string;
  /** The model id or pattern as written (`*` for any characters). */
  model: string;
  /** The date as written. */
  shutdown: string;
  /** The instant it means (a bare day: 00:00 UTC). */
  shutdownAt: number;
  successor: string | null;
  link: string | null;
  /**
   * `config`: the operator's (lifecycle.retirements); `shipped`: the collector's calendar file;
   * `provider`: a `Sunset` header on the model's answers (lifecycle/provider-signals.ts).
   */
  source: 'config' | 'shipped' | 'provider';
  /** For shipped entries: the day the provider's page was read. */
  readOn: string | null;
  /** For provider entries: the answers that carried the signal, and the latest one's time. */
  announced?: { responses: number; lastSeen: number };
}

/** The calendar: every entry, and the one that applies to a provider's model. */
export interface RetirementCalendar {
  readonly entries: readonly Retirement[];
  /** The entry for this provider and model: operator before shipped, exact id before pattern; null when none. */
  of(provider: string, model: string): Retirement | null;
}

/** Whole days until `r` retires, rounded up (0 or less: retired). */
export const daysLeft = (r: Retirement, now: number): number => Math.ceil((r.shutdownAt - now) / DAY);

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/**
 * Builds the calendar from the `lifecycle` section (already validated by loadConfig) and,
 * unless `shipped_calendar` is off, the shipped file — which is validated here, at start,
 * with the same one-line errors naming the field. `shipped` replaces the file (tests).
 */
export function loadCalendar(section: Config['lifecycle'], shipped: unknown = shippedFile): RetirementCalendar {
  const fromConfig: Retirement[] = section.retirements.map((r, i) => {
    const at = shutdownAt(r.shutdown);
    if (at === null) throw new ConfigError(`lifecycle.retirements.${i}.shutdown: is not a date in the calendar, got ${JSON.stringify(r.shutdown)}`);
    return { provider: r.provider, model: r.model, shutdown: r.shutdown, shutdownAt: at, successor: r.successor ?? null, link: r.link ?? null, source: 'config', readOn: null };
  });
  const fromFile = section.shipped_calendar ? shippedEntries(shipped) : [];
  return calendarOf([...fromConfig, ...fromFile]);
}

function shippedEntries(file: unknown): Retirement[] {
  const error = Value.Errors(ShippedCalendar, file).First();
  if (error) {
    const path = error.path.replace(/^\//, '').replaceAll('/', '.');
    throw new ConfigError(`${SHIPPED_CALENDAR_PATH}: ${path || '(root)'}: ${error.message}${error.value === undefined ? '' : `, got ${JSON.stringify(error.value)}`}`);
  }
  return (file as ShippedCalendar).retirements.map((r, i) => {
    const at = shutdownAt(r.shutdown);
    if (at === null) throw new ConfigError(`${SHIPPED_CALENDAR_PATH}: retirements.${i}.shutdown: is not a date in the calendar, got ${JSON.stringify(r.shutdown)}`);
    return { provider: r.provider, model: r.model, shutdown: r.shutdown, shutdownAt: at, successor: r.successor ?? null, link: r.link, source: 'shipped', readOn: r.read_on };
  });
}

/** Indexes `entries` (in precedence order) for lookups; the index is as large as the calendar, never as the traffic. */
function calendarOf(entries: Retirement[]): RetirementCalendar {
  const exact = new Map<string, Retirement>();
  const patterns: { re: RegExp; r: Retirement }[] = [];
  const rank = (r: Retirement) => (r.source === 'config' ? 0 : 2) + (r.model.includes('*') ? 1 : 0);
  for (const r of entries) {
    if (r.model.includes('*')) patterns.push({ re: new RegExp(`^${r.model.split('*').map(escapeRegExp).join('.*')}$`), r });
    else if (!exact.has(`${r.provider}\n${r.model}`)) exact.set(`${r.provider}\n${r.model}`, r);
  }
  return {
    entries,
    of(provider, model) {
      const candidates: Retirement[] = [];
      const hit = exact.get(`${provider}\n${model}`);
      if (hit) candidates.push(hit);
      const pattern = patterns.find((p) => p.r.provider === provider && p.re.test(model));
      if (pattern) candidates.push(pattern.r);
      // Several patterns of one source can match: the first listed wins, as operators read the list.
      return candidates.sort((a, b) => rank(a) - rank(b))[0] ?? null;
    },
  };
}
