import { Type, type Static } from '@sinclair/typebox';
import { ErrorReplies, ErrorReply } from './common.ts';

/** `GET /healthz` and `GET /readyz` (docs/operations.md). */

/** Reply of `GET /healthz`: the process answers. */
export const HealthReply = Type.Object({ status: Type.Literal('ok') });

/** Reply of `GET /readyz`: ready, or (503, with `Retry-After`) why not. */
export const ReadyReply = Type.Object({ status: Type.Literal('ready') });
export const NotReadyReply = Type.Object({ status: Type.Literal('not_ready'), reason: Type.String() });
export type NotReadyReply = Static<typeof NotReadyReply>;

/** Route schemas. */
export const HealthRoute = { response: { 200: HealthReply, ...ErrorReplies } };
export const ReadyRoute = { response: { 200: ReadyReply, 503: Type.Union([NotReadyReply, ErrorReply]), ...ErrorReplies } };
