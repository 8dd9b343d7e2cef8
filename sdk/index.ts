/**
 * breakerbox SDK — the one entry point. Applications import everything from here.
 */
export type * from './protocol.ts';
export { DEFAULT_LATENCY_BOUNDS_MS } from './protocol.ts';
export {
  ERROR_CLASSES,
  classifyHttpError,
  classifyErrorBody,
  classifyThrown,
  classifyFinishReason,
  countsAgainstProvider,
  isErrorClass,
  isRetryable,
  parseRetryAfter,
  providerErrorInfo,
  retryAfterFromHeaders,
  retryNeedsCare,
} from './errors/classify.ts';
export type { ProviderErrorInfo } from './errors/classify.ts';
export { BreakerboxError, SDK_ERROR_CODES, isBreakerboxError } from './errors/catalog.ts';
export type { BreakerboxErrorDetails, SdkErrorCode } from './errors/catalog.ts';
