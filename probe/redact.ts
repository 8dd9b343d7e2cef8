/**
 * The prober's redactor is the protocol's (`protocol/redact-text.ts`): the exact values the
 * prober holds (API keys, the ingest token) and every secret format of the shared catalogue
 * become `[redacted]`, before any text is written anywhere.
 */
export { createRedactor, redactDeep, REDACTED, type Redactor } from '@breakerbox/protocol';
