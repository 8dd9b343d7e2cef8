import { Type, type Static } from '@sinclair/typebox';
import { ErrorReplies, Nullable, StepParam, TimeRange, WindowParams } from './common.ts';

/** `GET /api/cost` — cost per successful task per operation (docs/api.md). */

/** Query of `GET /api/cost`. */
export const CostQuery = Type.Object({ ...WindowParams, ...StepParam, operation: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) });

/** Share of the served tasks per failover level (0 = the primary), null when none was served. */
export const LevelShares = Type.Object({
  0: Nullable('number'), 1: Nullable('number'), 2: Nullable('number'), 3: Nullable('number'), 4: Nullable('number'),
});
export type LevelShares = Static<typeof LevelShares>;

/** One operation's cost figures. */
export const OperationCost = Type.Object({
  operation: Type.String(),
  services: Type.Array(Type.String()),
  completed: Type.Number(),
  failed: Type.Number(),
  degraded: Type.Number(),
  attempts: Type.Number(),
  cost_usd: Type.Number(),
  cost_per_success: Nullable('number'),
  baseline: Type.Object({ from: Type.Integer(), to: Type.Integer(), cost_per_success: Nullable('number'), completed: Type.Number() }),
  ratio: Nullable('number'),
  levels: LevelShares,
  fallback: Type.Object({ invoked: Type.Number(), failed: Type.Number() }),
  series: Type.Array(Type.Object({
    t: Type.Integer(), completed: Type.Number(), failed: Type.Number(), attempts: Type.Number(), cost_usd: Type.Number(),
    cost_per_success: Nullable('number'), baseline: Nullable('number'), levels: LevelShares,
  })),
});
export type OperationCost = Static<typeof OperationCost>;

/** Reply of `GET /api/cost`. */
export const CostView = Type.Object({ window: TimeRange, step_ms: Type.Integer(), baseline_ms: Type.Integer(), operations: Type.Array(OperationCost) });
export type CostView = Static<typeof CostView>;

/** Route schema. */
export const CostRoute = { querystring: CostQuery, response: { 200: CostView, ...ErrorReplies } };
