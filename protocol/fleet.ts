/**
 * The fleet feed (docs/fleet.md): what the collector tells the SDK instances that subscribe
 * to `GET /v1/fleet`. The wire decision and its schema are defined in `schemas.ts` (importable
 * without Node.js built-ins); here are the key tag and the parser the SDK checks every event with.
 */
import { createHash } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { DrillCommandSchema, FleetDecisionSchema, type FleetDecision } from './schemas.ts';
import { keyId } from './key.ts';
import type { BreakerKey, DrillCommand } from './types.ts';

/**
 * A short, URL-safe tag of a key (16 hex of the SHA-256 of its id): the subscription names
 * its keys with these, so model ids with `/`, `:` or `@` never meet a query string.
 */
export function fleetKeyTag(key: BreakerKey): string {
  return createHash('sha256').update(keyId(key)).digest('hex').slice(0, 16);
}

const checkDecision = TypeCompiler.Compile(FleetDecisionSchema);

/**
 * Parses one feed event's data into a decision, or null when it is not one (not JSON, a
 * field missing, out of range, a kind this version does not know): a lying or broken
 * collector is ignored, never trusted in part.
 */
export function parseFleetDecision(data: string): FleetDecision | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  return checkDecision.Check(value) ? value : null;
}

const checkDrill = TypeCompiler.Compile(DrillCommandSchema);

/**
 * Parses one `drill` event's data into a drill command, or null when it is not one: like a
 * decision, a command that is not exactly valid is ignored whole.
 */
export function parseDrillCommand(data: string): DrillCommand | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  return checkDrill.Check(value) ? value : null;
}
