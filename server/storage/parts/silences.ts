import type { Matcher } from '../../schemas/alerts.ts';
// The matcher vocabulary is the silences API's (server/schemas/alerts.ts): one definition.
export { MATCHER_NAMES } from '../../schemas/alerts.ts';
export type { Matcher, MatcherName } from '../../schemas/alerts.ts';

/** A silence as stored; its state (pending / active / expired) is derived from the clock by the caller. */
export interface SilenceRecord {
  id: string;
  matchers: Matcher[];
  starts_at: number;
  ends_at: number;
  comment: string;
  created_by: string;
  created_at: number;
}

/** Silence rows. */
export interface SilencesPart {
  /** Stores a new silence (the caller has validated it and chosen its id). */
  insert(s: SilenceRecord): Promise<void>;
  /** Silences ending at or after `endsAfter`, latest end first. */
  listEndingAfter(endsAfter: number): Promise<SilenceRecord[]>;
  /** Silences in effect at `now` (starts_at <= now < ends_at), unordered. */
  active(now: number): Promise<SilenceRecord[]>;
  /** One silence by id, or null. */
  get(id: string): Promise<SilenceRecord | null>;
  /** Ends a silence at `now` if it ends later; resolves to the silence as stored afterwards, or null when there is no such id. */
  expire(id: string, now: number): Promise<SilenceRecord | null>;
}
