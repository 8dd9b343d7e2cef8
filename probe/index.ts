/**
 * `@breakerbox/probe` — the prober as a library: the CLI's `main` (what `breakerbox-probe`
 * and `breakerbox probe` run), the prober, configuration loading and the plan.
 */
export { main } from './cli.ts';
export type { CliIo } from './cli.ts';
export { Prober } from './prober.ts';
export type { ProberOptions, ProberStats } from './prober.ts';
export { loadConfig, parseConfigText } from './config-load.ts';
export { buildPlan, formatPlan, estimateDailyCost } from './plan.ts';
export type { Plan, PlanRow } from './plan.ts';
export type { ProberConfig, TargetConfig } from './config-types.ts';
export { ProbeRequestClient } from './request-client.ts';
export type { ProbeRequest, ProbeRequestClientOptions } from './request-client.ts';
