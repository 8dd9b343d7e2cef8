import { randomUUID } from 'node:crypto';
import { BreakerboxError } from '../errors.ts';
import type { Db } from '../storage/database.ts';

/** Alert fields a matcher can name. */
export const MATCHER_NAMES = ['rule', 'provider', 'endpoint', 'model', 'region', 'location', 'operation', 'severity', 'fingerprint'] as const;
export type MatcherName = (typeof MATCHER_NAMES)[number];

export interface Matcher {
  name: MatcherName;
  value: string;
  regex: boolean;
}

/** A silence as the API shows it. */
export interface Silence {
  id: string;
  matchers: Matcher[];
  starts_at: number;
  ends_at: number;
  comment: string;
  created_by: string;
  created_at: number;
  state: 'pending' | 'active' | 'expired';
}

/** The body of `POST /api/silences` after schema validation. */
export interface SilenceInput {
  matchers: { name: MatcherName; value: string; regex?: boolean }[];
  starts_at?: number;
  ends_at: number;
  comment: string;
  created_by?: string;
}

/** Labels of an alert that matchers look at; a missing field is "". */
export type AlertLabels = Record<MatcherName, string>;

const stateAt = (s: Omit<Silence, 'state'>, now: number): Silence['state'] =>
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

/** Silence persistence. */
export interface SilenceStore {
  create(input: SilenceInput, createdBy: string, now: number): Silence;
  list(now: number): Silence[];
  /** Silences in effect at `now`. */
  active(now: number): Silence[];
  expire(id: string, now: number): Silence | null;
  prune(before: number): void;
}

/** Creates the silence store. */
export function createSilenceStore(db: Db): SilenceStore {
  const insert = db.prepare('INSERT INTO silences (id, matchers, starts_at, ends_at, comment, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const listStmt = db.prepare('SELECT * FROM silences WHERE ends_at >= ? ORDER BY ends_at DESC');
  const activeStmt = db.prepare('SELECT * FROM silences WHERE starts_at <= ? AND ends_at > ?');
  const one = db.prepare('SELECT * FROM silences WHERE id = ?');
  const expireStmt = db.prepare('UPDATE silences SET ends_at = ? WHERE id = ? AND ends_at > ?');
  const pruneStmt = db.prepare('DELETE FROM silences WHERE ends_at < ?');
  type Row = { id: string; matchers: string; starts_at: number; ends_at: number; comment: string; created_by: string; created_at: number };
  const view = (row: Row, now: number): Silence => {
    const s = { ...row, matchers: JSON.parse(row.matchers) as Matcher[] };
    return { ...s, state: stateAt(s, now) };
  };

  return {
    create(input, createdBy, now) {
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
      const row: Row = {
        id: randomUUID(), matchers: JSON.stringify(matchers), starts_at: startsAt, ends_at: input.ends_at,
        comment: input.comment, created_by: input.created_by ?? createdBy, created_at: now,
      };
      insert.run(row.id, row.matchers, row.starts_at, row.ends_at, row.comment, row.created_by, row.created_at);
      return view(row, now);
    },
    list(now) {
      const order = { active: 0, pending: 1, expired: 2 };
      return (listStmt.all(now - 7 * 86_400_000) as Row[]).map((r) => view(r, now)).sort((a, b) => order[a.state] - order[b.state]);
    },
    active(now) {
      return (activeStmt.all(now, now) as Row[]).map((r) => view(r, now));
    },
    expire(id, now) {
      const row = one.get(id) as Row | undefined;
      if (!row) return null;
      expireStmt.run(now, id, now);
      return view(one.get(id) as Row, now);
    },
    prune(before) {
      pruneStmt.run(before);
    },
  };
}
