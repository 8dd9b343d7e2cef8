import { Type, type Static } from '@sinclair/typebox';
import { BreakerKeySchema, CallSampleSchema } from '@breakerbox/protocol/schemas';
import { ERROR_CLASSES } from '@breakerbox/protocol/taxonomy';
import { ErrorReplies, StringEnum, TimeRange, WindowParams } from './common.ts';

/** `GET /api/key/samples` (failed and slow calls of a key) and `GET /api/incidents/:id/ticket` — docs/api.md. */

/** Query of `GET /api/key/samples`: the key (as `/api/key` takes it), the window, filters and a limit. */
export const SamplesQuery = Type.Object({
  ...WindowParams,
  provider: Type.String({ minLength: 1, maxLength: 100 }),
  endpoint: Type.String({ minLength: 1, maxLength: 100 }),
  model: Type.String({ minLength: 1, maxLength: 300 }),
  region: Type.Optional(Type.String({ maxLength: 100 })),
  error_class: Type.Optional(StringEnum([...ERROR_CLASSES, 'slow'] as const, { description: 'an error class, or slow for slow successes' })),
  service: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  instance: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
});
export type SamplesQuery = Static<typeof SamplesQuery>;

/** One stored sample as the API returns it: who sent it, and the sample as sent. */
export const StoredSample = Type.Object({
  service: Type.String(),
  instance: Type.String(),
  sample: CallSampleSchema,
});

/** Reply of `GET /api/key/samples`, newest first. */
export const SamplesReply = Type.Object({ window: TimeRange, key: BreakerKeySchema, samples: Type.Array(StoredSample) });
export type SamplesReply = Static<typeof SamplesReply>;

/** Query of `GET /api/incidents/:id/ticket`: the window, and whether to name our services. */
export const TicketQuery = Type.Object({ ...WindowParams, sources: Type.Optional(StringEnum(['true', 'false'] as const)) });
/** Params of `GET /api/incidents/:id/ticket`: the incident id. */
export const TicketParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{16}$' }) });
/** The ticket: plain text a provider's support can act on. */
export const TicketText = Type.String({ description: 'text/plain; the provider ticket (docs/api.md)' });

/** Route schemas. */
export const SamplesRoute = { querystring: SamplesQuery, response: { 200: SamplesReply, ...ErrorReplies } };
export const TicketRoute = { params: TicketParams, querystring: TicketQuery, response: { 200: TicketText, ...ErrorReplies } };
