import fp from 'fastify-plugin';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { BreakerboxError } from '../errors.ts';
import type { Principal, Right } from '../storage/storage.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** An onRequest hook that admits only tokens holding `right`. */
    requireRight(right: Right): onRequestHookHandler;
    /** Resolves the caller from its credentials; null when it presented none. */
    authenticate(request: FastifyRequest): Promise<Principal | null>;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Other ways to present a credential (the dashboard's session cookie) plug in here. */
export type CredentialResolver = (request: FastifyRequest) => Promise<Principal | null | undefined>;

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Token authentication: `Authorization: Bearer <secret>` checked against hashed tokens
 * in constant time. Runs in onRequest, before the body is read, so an unauthenticated
 * client cannot make the server parse or inflate anything.
 */
export const authPlugin = fp(async (app) => {
  if (app.config.admin_token) await app.storage.tokens.ensure('admin', app.config.admin_token, ['admin']);
  const resolvers: CredentialResolver[] = [];
  app.decorate('credentialResolvers', resolvers);
  app.decorateRequest('principal', null);

  app.decorate('authenticate', async (request: FastifyRequest): Promise<Principal | null> => {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const match = BEARER.exec(header);
      if (!match) throw new BreakerboxError('BB_ERR_AUTH_INVALID', 'the Authorization header must be "Bearer <token>"');
      const principal = await app.storage.tokens.verify(match[1]!);
      if (!principal) throw new BreakerboxError('BB_ERR_AUTH_INVALID');
      return principal;
    }
    for (const resolve of resolvers) {
      const principal = await resolve(request);
      if (principal) return principal;
    }
    return null;
  });

  app.decorate('requireRight', (right: Right): onRequestHookHandler => {
    return async (request) => {
      const principal = await app.authenticate(request);
      if (!principal) throw new BreakerboxError('BB_ERR_AUTH_MISSING');
      if (!principal.rights.has(right)) {
        throw new BreakerboxError('BB_ERR_AUTH_FORBIDDEN', `token "${principal.name}" lacks the "${right}" right`);
      }
      request.principal = principal;
    };
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    /** Extra credential resolvers, tried in order when no Authorization header is sent. */
    credentialResolvers: CredentialResolver[];
  }
}
