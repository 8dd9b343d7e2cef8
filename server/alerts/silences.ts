import { randomUUID } from 'node:crypto';
import { BreakerboxError } from '../errors.ts';
import type { Matcher, MatcherName, SilenceRecord, SilencesPart } from '../storage/storage.ts';
import type { Silence, SilenceInput } from '../schemas/alerts.ts';

export type { Silence, SilenceInput } from '../schemas/alerts.ts';


/** Labels of an alert that matchers look at; a missing field is "". */
export type AlertLabels = Record<MatcherName, string>;

const stateAt = (s: SilenceRecord, now: number): Silence['state'] =>
  now < s.starts_at ? 'pending' : now < s.ends_at ? 'active' : 'expired';

const compiled = new Map<string, RegExp>();
function regexOf(value: string): RegExp {
  let re = compiled.get(value);
  if (!re) {
    re = new RegExp(`^(?:${value})$`);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(value, re);
  }
  return re;
}

/** True when every matcher matches the labels. */
export function matches(matchers: Matcher[], labels: AlertLabels): boolean {
  return matchers.every((m) => (m.regex ? regexOf(m.value).test(labels[m.name]) : labels[m.name] === m.value));
}

/** Silences: validation and state over the storage's silence rows. */
export interface SilenceStore {
  create(input: SilenceInput, createdBy: string, now: number): Promise<Silence>;
  /** Active first, then pending, then those that ended in the last week. */
  list(now: number): Promise<Silence[]>;
  /** Silences in effect at `now`. */
  active(now: number): Promise<Silence[]>;
  expire(id: string, now: number): Promise<Silence | null>;
}

/** How long an ended silence is still listed. */
const LISTED_AFTER_END_MS = 7 * 86_400_000;

/** Creates the silence logic over the storage's silences part. */
export function createSilenceStore(rows: SilencesPart): SilenceStore {
  const view = (row: SilenceRecord, now: number): Silence => ({ ...row, state: stateAt(row, now) });
  return {
    async create(input, createdBy, now) {
      const startsAt = input.starts_at ?? now;
      if (input.ends_at <= startsAt) throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'ends_at must be after starts_at', { path: '/body/ends_at' });
      if (input.ends_at <= now) throw new BreakerboxError('BB_ERR_QUERY_INVALID', 'ends_at must be in the future', { path: '/body/ends_at' });
      const matchers: Matcher[] = input.matchers.map((m, i) => {
        if (m.regex) {
          try {
            regexOf(m.value);
          } catch (err) {
            throw new BreakerboxError('BB_ERR_QUERY_INVALID', `not a valid regular expression: ${(err as Error).message}`, { path: `/body/matchers/${i}/value` });
          }
        }
        return { name: m.name, value: m.value, regex: m.regex ?? false };
      });
      const row: SilenceRecord = {
        id: randomUUID(), matchers, starts_at: startsAt, ends_at: input.ends_at,
        comment: input.comment, created_by: input.created_by ?? createdBy, created_at: now,
      };
      await rows.insert(row);
      return view(row, now);
    },
    async list(now) {
      const order = { active: 0, pending: 1, expired: 2 };
      return (await rows.listEndingAfter(now - LISTED_AFTER_END_MS)).map((r) => view(r, now)).sort((a, b) => order[a.state] - order[b.state]);
    },
    async active(now) {
      return (await rows.active(now)).map((r) => view(r, now));
    },
    async expire(id, now) {
      const row = await rows.expire(id, now);
      return row ? view(row, now) : null;
    },
  };
}
