/**
 * The error taxonomy (docs/architecture.md): one class per kind of failure, whether it is
 * retried, and whether it counts against the provider. The SDK, the prober and the
 * collector all import this one table.
 */
import type { ErrorClass } from './types.ts';

/** Every class of the taxonomy, in taxonomy order (docs/architecture.md). */
export const ERROR_CLASSES: readonly ErrorClass[] = [
  'rate_limit',
  'quota',
  'server',
  'network',
  'timeout',
  'bad_request',
  'auth',
  'context_length',
  'policy',
  'truncated',
  'stream_broken',
  'invalid_output',
  'unclassified',
];

const RETRYABLE: ReadonlySet<ErrorClass> = new Set<ErrorClass>([
  'rate_limit',
  'server',
  'network',
  'timeout',
  'stream_broken',
]);

/** Classes retried only "with care" (docs/architecture.md): once the request may have reached the model. */
const RETRY_WITH_CARE: ReadonlySet<ErrorClass> = new Set<ErrorClass>(['network', 'timeout', 'stream_broken']);

/** True for classes the taxonomy marks retryable (rate_limit, server, network, timeout, stream_broken). */
export function isRetryable(cls: ErrorClass): boolean {
  return RETRYABLE.has(cls);
}

/** True for the retryable classes the taxonomy marks "with care" (network, timeout, stream_broken). */
export function retryNeedsCare(cls: ErrorClass): boolean {
  return RETRY_WITH_CARE.has(cls);
}

/**
 * True when a failure of this class is evidence against the provider (it may trip a
 * breaker). The client-fault classes — quota, bad_request, auth, context_length, policy,
 * truncated, invalid_output — are counted but never held against the provider.
 */
export function countsAgainstProvider(cls: ErrorClass): boolean {
  return RETRYABLE.has(cls);
}

/** Type guard for a string that names a taxonomy class. */
export function isErrorClass(value: unknown): value is ErrorClass {
  return typeof value === 'string' && (ERROR_CLASSES as readonly string[]).includes(value);
}

/** Classes that count against the provider, in taxonomy order. */
export const PROVIDER_CLASSES: readonly ErrorClass[] = ERROR_CLASSES.filter((c) => countsAgainstProvider(c));
/**
 * Classes that are our own doing (account, request, content), in taxonomy order. Not
 * `unclassified`: a failure whose kind nobody could tell is held against neither side.
 */
export const CLIENT_CLASSES: readonly ErrorClass[] = ERROR_CLASSES.filter((c) => !countsAgainstProvider(c) && c !== 'unclassified');
