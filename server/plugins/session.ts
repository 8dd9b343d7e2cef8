import fp from 'fastify-plugin';
import fastifyCookie from '@fastify/cookie';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { BreakerboxError } from '../errors.ts';
import { RIGHTS, type Principal, type Right } from '../storage/token-store.ts';

/** The cookie that carries a dashboard session id. */
export const SESSION_COOKIE = 'bb_session';

/** Options of the session plugin; defaults resolved once at registration. */
export interface SessionOptions {
  /** How long a session lasts from sign-in, in ms (default 12 h: one on-call shift). */
  ttlMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

const SignInBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false });
const SessionReply = Type.Object({
  name: Type.String(),
  rights: Type.Array(Type.String()),
  expires_at: Type.Integer(),
});

interface SessionRow {
  token_id: number;
  name: string;
  rights: string;
  expires_at: number;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function expandRights(list: string): ReadonlySet<Right> {
  const rights = list.split(',').filter(Boolean) as Right[];
  return new Set(rights.includes('admin') ? RIGHTS : rights);
}

/**
 * Dashboard sign-in. `POST /api/session {"token"}` checks a token holding the `read` right
 * and answers with an httpOnly, SameSite=Strict cookie holding a random session id; only
 * the id's hash is stored. The cookie is then accepted wherever a Bearer token is (through
 * `app.credentialResolvers`), with the rights the token has at that moment: revoking or
 * rotating the token ends its sessions. `GET /api/session` says who is signed in;
 * `DELETE /api/session` signs out. The token itself never reaches the browser's storage.
 */
export const sessionPlugin = fp<SessionOptions>(async (app, options) => {
  const ttlMs = options.ttlMs ?? 12 * 3_600_000;
  const now = options.now ?? Date.now;
  await app.register(fastifyCookie);

  const { db } = app;
  const insert = db.prepare('INSERT INTO sessions (id_hash, token_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)');
  const tokenHash = db.prepare('SELECT hash FROM tokens WHERE id = ? AND revoked_at IS NULL');
  const lookup = db.prepare(`
    SELECT t.id AS token_id, t.name, t.rights, s.expires_at
    FROM sessions s JOIN tokens t ON t.id = s.token_id AND t.hash = s.token_hash
    WHERE s.id_hash = ? AND s.expires_at > ? AND t.revoked_at IS NULL`);
  const remove = db.prepare('DELETE FROM sessions WHERE id_hash = ?');
  const prune = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');

  const sessionOf = (request: FastifyRequest): SessionRow | null => {
    const header = request.headers.cookie;
    if (!header) return null;
    const id = app.parseCookie(header)[SESSION_COOKIE];
    if (!id) return null;
    return (lookup.get(sha256(id), now()) as SessionRow | undefined) ?? null;
  };

  app.credentialResolvers.push((request): Principal | null => {
    const row = sessionOf(request);
    return row ? { tokenId: row.token_id, name: row.name, rights: expandRights(row.rights) } : null;
  });

  const cookieOptions = (request: FastifyRequest, maxAgeS: number) => ({
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: request.protocol === 'https',
    maxAge: maxAgeS,
  });
  const describe = (row: SessionRow): Static<typeof SessionReply> => ({
    name: row.name,
    rights: [...expandRights(row.rights)],
    expires_at: row.expires_at,
  });

  app.post<{ Body: Static<typeof SignInBody> }>(
    '/api/session',
    { schema: { body: SignInBody, response: { 200: SessionReply } } },
    async (request, reply) => {
      const principal = app.tokens.verify(request.body.token);
      if (!principal) throw new BreakerboxError('BB_ERR_AUTH_INVALID');
      if (!principal.rights.has('read')) {
        throw new BreakerboxError('BB_ERR_AUTH_FORBIDDEN', `token "${principal.name}" lacks the "read" right the dashboard needs`);
      }
      const hash = tokenHash.get(principal.tokenId) as { hash: string } | undefined;
      if (!hash) throw new BreakerboxError('BB_ERR_AUTH_INVALID');
      const at = now();
      prune.run(at);
      const id = randomBytes(32).toString('base64url');
      const expiresAt = at + ttlMs;
      insert.run(sha256(id), principal.tokenId, hash.hash, at, expiresAt);
      reply.setCookie(SESSION_COOKIE, id, cookieOptions(request, Math.floor(ttlMs / 1000)));
      reply.header('cache-control', 'no-store');
      return { name: principal.name, rights: [...principal.rights], expires_at: expiresAt };
    },
  );

  app.get('/api/session', { schema: { response: { 200: SessionReply } } }, async (request, reply: FastifyReply) => {
    const row = sessionOf(request);
    if (!row) throw new BreakerboxError('BB_ERR_AUTH_MISSING', 'not signed in');
    reply.header('cache-control', 'no-store');
    return describe(row);
  });

  app.delete('/api/session', async (request, reply) => {
    const header = request.headers.cookie;
    const id = header ? app.parseCookie(header)[SESSION_COOKIE] : undefined;
    if (id) remove.run(sha256(id));
    reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' });
    return reply.code(204).send();
  });

  const timer = setInterval(() => prune.run(now()), 3_600_000);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
});
