/**
 * The collector's HTTP contract: one schema module per area, importing only
 * `@sinclair/typebox` and `@breakerbox/protocol`. The routes validate and serialise with
 * them; the dashboard takes its API types from them (`dashboard/src/api/types.ts`).
 */
export * from './common.ts';
export * from './verdicts.ts';
export * from './keys.ts';
export * from './cost.ts';
export * from './probes.ts';
export * from './alerts.ts';
export * from './session.ts';
export * from './health.ts';
export * from './ingest.ts';
export * from './metrics.ts';
export * from './samples.ts';
export * from './fleet.ts';
export * from './lifecycle.ts';
export * from './drills.ts';
export * from './shadow.ts';
