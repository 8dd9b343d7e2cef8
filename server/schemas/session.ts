import { Type, type Static } from '@sinclair/typebox';
import { ErrorReplies } from './common.ts';

/** `POST|GET|DELETE /api/session` — dashboard sign-in (docs/api.md). */

/** Body of `POST /api/session`: a token holding the `read` right. */
export const SignInBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false });

/** Who is signed in, with which rights, until when. */
export const SessionInfo = Type.Object({
  name: Type.String(),
  rights: Type.Array(Type.String()),
  expires_at: Type.Integer(),
});
export type SessionInfo = Static<typeof SessionInfo>;

/** Route schemas. */
export const SignInRoute = { body: SignInBody, response: { 200: SessionInfo, ...ErrorReplies } };
export const SessionRoute = { response: { 200: SessionInfo, ...ErrorReplies } };
export const SignOutRoute = { response: { 204: Type.Null({ description: 'signed out; the cookie is cleared' }), ...ErrorReplies } };
