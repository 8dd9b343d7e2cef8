/**
 * A telemetry batch of drill traffic (`drill_id`, docs/drills.md) is stored whole in the
 * drill tables and nowhere else: the rollups, raw events, samples and cost the verdicts,
 * incidents, alerts and `/metrics` read never see it. A batch naming a run this collector's
 * database does not know is refused (400, `path` `/drill_id`), never stored as real traffic.
 */
import type { TelemetryAck, TelemetryBatch } from '@breakerbox/protocol';
import { BreakerboxError } from '../errors.ts';
import type { DrillsPart } from '../storage/storage.ts';

/** Stores one validated drill batch; resolves to its ack (`duplicate` for a retry of a stored batch). */
export async function ingestDrillBatch(store: Pick<DrillsPart, 'getRun' | 'insertBatch'>, batch: TelemetryBatch & { drill_id: string }, now: number): Promise<TelemetryAck> {
  const run = await store.getRun(batch.drill_id);
  if (!run) throw new BreakerboxError('BB_ERR_INGEST_INVALID', `unknown drill run "${batch.drill_id}": drill traffic is stored only against a run started on this collector`, { path: '/drill_id' });
  if (run.service !== batch.source.service) {
    throw new BreakerboxError('BB_ERR_INGEST_INVALID', `drill run "${run.id}" was sent to service "${run.service}", not "${batch.source.service}"`, { path: '/drill_id' });
  }
  const stored = await store.insertBatch(run.id, batch.batch_id, { service: batch.source.service, instance: batch.source.instance, receivedAt: now, events: batch.events });
  return { accepted: stored ? batch.events.length : 0, duplicate: !stored };
}
