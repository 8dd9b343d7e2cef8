import { createHash } from 'node:crypto';
import type { BreakerKey } from '@breakerbox/protocol';

/**
 * The alert's identity: rule + key (+ location for probe alerts, + operation for cost
 * alerts), hashed to 16 hex characters. Field order is fixed, so it is stable across
 * restarts and processes.
 */
export function fingerprint(rule: string, key: BreakerKey | null, location: string | null = null, operation: string | null = null): string {
  const parts = [rule, key?.provider ?? '', key?.endpoint ?? '', key?.model ?? '', key?.region ?? '', location ?? '', operation ?? ''];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}
