/** What a token may do. `admin` implies the other two. */
export type Right = 'ingest' | 'read' | 'admin';
/** The rights in their canonical order. */
export const RIGHTS: readonly Right[] = ['ingest', 'read', 'admin'];

/** A token as listed: never its secret or hash. */
export interface TokenInfo {
  id: number;
  name: string;
  rights: Right[];
  createdAt: number;
  revokedAt: number | null;
}

/** The identity a verified secret (or a session) resolves to. */
export interface Principal {
  tokenId: number;
  name: string;
  rights: ReadonlySet<Right>;
}

/** API tokens: only their SHA-256 is stored. */
export interface TokensPart {
  /** Creates a token (a fresh secret unless one is given); rejects when the name is taken. Returns the secret once. */
  create(name: string, rights: Right[], secret?: string): Promise<{ secret: string; token: TokenInfo }>;
  /** Every token, revoked ones too, ordered by name. */
  list(): Promise<TokenInfo[]>;
  /** Revokes the active token named `name`; false when there is none. */
  revoke(name: string): Promise<boolean>;
  /** Number of active (unrevoked) tokens. */
  count(): Promise<number>;
  /** Makes a token named `name` exist, active, with exactly this secret and rights. */
  ensure(name: string, secret: string, rights: Right[]): Promise<void>;
  /**
   * The principal a secret belongs to, or null. Compared in constant time against every
   * active token; active tokens are cached for a few seconds, so the hot ingest path does
   * not read the database (tokens made elsewhere show up within that time).
   */
  verify(secret: string): Promise<Principal | null>;
}

/** Parses `ingest,read` into rights, naming the first unknown one. */
export function parseRights(text: string): Right[] {
  const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw new Error('--rights needs at least one of ingest, read, admin');
  for (const p of parts) {
    if (!RIGHTS.includes(p as Right)) throw new Error(`--rights: unknown right "${p}" (allowed: ingest, read, admin)`);
  }
  return parts as Right[];
}

/** The rights a token holds in effect: `admin` implies the others. */
export function expandRights(rights: readonly Right[]): ReadonlySet<Right> {
  return new Set(rights.includes('admin') ? RIGHTS : rights);
}
