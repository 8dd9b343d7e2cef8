import type { Right } from './tokens.ts';

/** A live dashboard session joined with its token. */
export interface SessionRecord {
  tokenId: number;
  /** The token's name. */
  name: string;
  rights: Right[];
  expiresAt: number;
}

/** Dashboard sessions: only the hash of the session id is stored, bound to the token's hash at sign-in. */
export interface SessionsPart {
  /**
   * Stores a session for an active token, bound to the token's current hash (rotating or
   * revoking the token ends it). False when the token is revoked or gone.
   */
  create(s: { idHash: string; tokenId: number; createdAt: number; expiresAt: number }): Promise<boolean>;
  /** The session with this id hash if it has not expired at `now` and its token is unchanged and active; else null. */
  lookup(idHash: string, now: number): Promise<SessionRecord | null>;
  /** Deletes one session (sign-out); a missing one is not an error. */
  remove(idHash: string): Promise<void>;
}
