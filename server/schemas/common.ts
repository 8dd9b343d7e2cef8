import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { ErrorReplySchema } from '@breakerbox/protocol/schemas';
import { ERROR_CLASSES } from '@breakerbox/protocol/taxonomy';
import type { ErrorClass } from '@breakerbox/protocol';

/**
 * Building blocks of the collector's HTTP contract (docs/api.md). The schema modules in this
 * folder import only `@sinclair/typebox` and `@breakerbox/protocol`, so the dashboard can
 * take its API types from them (`Static<typeof …>`) without pulling in server code.
 */

/** A string from a fixed list: `{type: 'string', enum}` (validated by ajv, serialised as a plain string). */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

type Primitive = { number: number; integer: number; string: string; boolean: boolean };

/** A primitive or null, as one JSON type list (`["number", "null"]`), which the serialiser writes without trying each branch. */
export function Nullable<K extends keyof Primitive>(type: K, options: { description?: string } = {}): TUnsafe<Primitive[K] | null> {
  return Type.Unsafe<Primitive[K] | null>({ type: [type, 'null'], ...options });
}

/** An object or null. */
export const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The one error body every failure answers with (`{"error": {"code", "message", "path"?}}`; the codes in docs/errors.md). */
export const ErrorReply = ErrorReplySchema;
export type ErrorReplyBody = Static<typeof ErrorReply>;

/** The error replies every route declares: catalog codes, 4xx and 5xx alike. */
export const ErrorReplies = { '4xx': ErrorReply, '5xx': ErrorReply } as const;

/** A count of error classes, one property per class of the taxonomy. */
export const ErrorCounts = Type.Unsafe<Record<ErrorClass, number>>(
  Type.Object(Object.fromEntries(ERROR_CLASSES.map((c) => [c, Type.Number()]))),
);
/** Counts of the classes that occurred only. */
export const SomeErrorCounts = Type.Unsafe<Partial<Record<ErrorClass, number>>>(
  Type.Object(Object.fromEntries(ERROR_CLASSES.map((c) => [c, Type.Optional(Type.Number())]))),
);

/** A resolved window, `[from, to)` in ms since the epoch. */
export const TimeRange = Type.Object({ from: Type.Integer(), to: Type.Integer() });
export type TimeRange = Static<typeof TimeRange>;

const Millis = Type.String({ pattern: '^[0-9]{1,16}$', description: 'ms since the Unix epoch' });

/** The window parameters every windowed read takes: a named `window` ending at `to` or now, or `from`/`to`. */
export const WindowParams = {
  window: Type.Optional(Type.String({ maxLength: 8, description: '5m, 15m, 1h, 6h, 24h or 7d' })),
  from: Type.Optional(Millis),
  to: Type.Optional(Millis),
};
/** The series step of the views that draw one (a multiple of a minute, in ms). */
export const StepParam = { step: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$', description: 'series step in ms, a multiple of 60000' })) };
/** `limit` and `cursor` of a paged list. */
export const PageParams = {
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$', description: 'entries per page (default api.default_limit)' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
};

/** Query of a windowed read. */
export const WindowQuery = Type.Object(WindowParams);
/** The window parameters, as `parseWindow` resolves them. */
export type WindowQuery = Static<typeof WindowQuery>;
/** Query of a windowed, paged list. */
export const PagedWindowQuery = Type.Object({ ...WindowParams, ...PageParams });
export type PagedWindowQuery = Static<typeof PagedWindowQuery>;

/** What a paged reply adds: the next page's cursor (null on the last) and the entries over all pages. */
export const PageFields = { next_cursor: Nullable('string'), total: Type.Integer() };

/** p50/p95/p99 in ms, null without data. */
export const Percentiles = Type.Object({ p50: Nullable('number'), p95: Nullable('number'), p99: Nullable('number') });
export type Percentiles = Static<typeof Percentiles>;
