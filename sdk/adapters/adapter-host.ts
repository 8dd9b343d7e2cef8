/**
 * What the opossum and cockatiel adapters need from the SDK instance: a key whose breaker
 * lives in the other library, and a place to count task outcomes. The adapters depend on
 * this interface and `Breakerbox` implements it, so they never reach into the whole SDK.
 */
import type { BreakerKey, BreakerStateName } from '@breakerbox/protocol';
import type { TaskOutcome } from '../telemetry/task-stats.ts';
import type { ExternalKey } from './external-key.ts';

/** The SDK instance as an adapter sees it. */
export interface AdapterHost {
  /** A key reported like the SDK's own, fed by the other library's breaker events. */
  externalKey(key: BreakerKey, initial?: BreakerStateName, latencyCeilingMs?: number): ExternalKey;
  /** Records one task run outside an SDK operation (e.g. an opossum fallback). */
  recordTask(operation: string, outcome: TaskOutcome): void;
}
