import fp from 'fastify-plugin';
import fastifyCookie from '@fastify/cookie';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreakerboxError } from '../errors.ts';
import { expandRights, type Principal, type SessionRecord } from '../storage/storage.ts';
import { SessionRoute, SignInRoute, SignOutRoute, type SessionInfo } from '../schemas/session.ts';

/** The cookie that carries a dashboard session id. */
export const SESSION_COOKIE = 'bb_session';

/** Options of the session plugin; defaults resolved once at registration. */
export interface SessionOptions {
  /** How long a session lasts from sign-in, in ms (default 12 h: one on-call shift). */
  ttlMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Dashboard sign-in. `POST /api/session {"token"}` checks a token holding the `read` right
 * and answers with an httpOnly, SameSite=Strict cookie holding a random session id; only
 * the id's hash is stored. The cookie is then accepted wherever a Bearer token is (through
 * `app.credentialResolvers`), with the rights the token has at that moment: revoking or
 * rotating the token ends its sessions. `GET /api/session` says who is signed in;
 * `DELETE /api/session` signs out. The token itself never reaches the browser's storage.
 */
export const sessionPlugin = fp<SessionOptions>(async (fastify, options) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const ttlMs = options.ttlMs ?? 12 * 3_600_000;
  const now = options.now ?? Date.now;
  await app.register(fastifyCookie);

  const { sessions } = app.storage;

  const sessionOf = async (request: FastifyRequest): Promise<SessionRecord | null> => {
    const header = request.headers.cookie;
    if (!header) return null;
    const id = app.parseCookie(header)[SESSION_COOKIE];
    if (!id) return null;
    return sessions.lookup(sha256(id), now());
  };

  app.credentialResolvers.push(async (request): Promise<Principal | null> => {
    const row = await sessionOf(request);
    return row ? { tokenId: row.tokenId, name: row.name, rights: expandRights(row.rights) } : null;
  });

  const cookieOptions = (request: FastifyRequest, maxAgeS: number) => ({
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: request.protocol === 'https',
    maxAge: maxAgeS,
  });
  const describe = (row: SessionRecord): SessionInfo => ({
    name: row.name,
    rights: [...expandRights(row.rights)],
    expires_at: row.expiresAt,
  });

  app.post(
    '/api/session',
    { schema: SignInRoute },
    async (request, reply) => {
      const principal = await app.storage.tokens.verify(request.body.token);
      if (!principal) throw new BreakerboxError('BB_ERR_AUTH_INVALID');
      if (!principal.rights.has('read')) {
        throw new BreakerboxError('BB_ERR_AUTH_FORBIDDEN', `token "${principal.name}" lacks the "read" right the dashboard needs`);
      }
      const at = now();
      const id = randomBytes(32).toString('base64url');
      const expiresAt = at + ttlMs;
      // Bound to the token's hash as stored now: false when it was revoked since verify.
      if (!(await sessions.create({ idHash: sha256(id), tokenId: principal.tokenId, createdAt: at, expiresAt }))) {
        throw new BreakerboxError('BB_ERR_AUTH_INVALID');
      }
      reply.setCookie(SESSION_COOKIE, id, cookieOptions(request, Math.floor(ttlMs / 1000)));
      reply.header('cache-control', 'no-store');
      return { name: principal.name, rights: [...principal.rights], expires_at: expiresAt };
    },
  );

  app.get('/api/session', { schema: SessionRoute }, async (request, reply) => {
    const row = await sessionOf(request);
    if (!row) throw new BreakerboxError('BB_ERR_AUTH_MISSING', 'not signed in');
    reply.header('cache-control', 'no-store');
    return describe(row);
  });

  app.delete('/api/session', { schema: SignOutRoute }, async (request, reply) => {
    const header = request.headers.cookie;
    const id = header ? app.parseCookie(header)[SESSION_COOKIE] : undefined;
    if (id) await sessions.remove(sha256(id));
    reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' });
    return reply.code(204).send(null);
  });
});
