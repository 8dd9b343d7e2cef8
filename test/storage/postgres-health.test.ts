import { describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import { classifyPostgresError } from '../../server/storage/postgres/health.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { batch, windowEvent } from '../server/helpers.ts';
import { RETENTION, usePostgresCluster } from '../support/postgres-cluster.ts';

const postgres = usePostgresCluster({ own: true });

describe('PostgreSQL fault classification', () => {
  it('tells storage faults (unreachable, disk full, I/O) from bugs', () => {
    expect(classifyPostgresError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))?.kind).toBe('unreachable');
    expect(classifyPostgresError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))?.kind).toBe('unreachable');
    expect(classifyPostgresError(new Error('Connection terminated unexpectedly'))?.kind).toBe('unreachable');
    expect(classifyPostgresError(Object.assign(new Error('could not extend file'), { code: '53100' }))?.kind).toBe('disk_full');
    expect(classifyPostgresError(Object.assign(new Error('could not read block'), { code: '58030' }))?.kind).toBe('io_error');
    expect(classifyPostgresError(Object.assign(new Error('duplicate key value'), { code: '23505' }))).toBeNull();
    expect(classifyPostgresError(Object.assign(new Error('syntax error'), { code: '42601' }))).toBeNull();
  });
});

describe.skipIf(!postgres.available)('PostgreSQL storage health', () => {
  it('reports the server unreachable once it stops, refuses writes with a retry delay, and clears when a write succeeds again', async () => {
    // This test stops the file's cluster itself (its own, not the run's shared one): the fault it is about.
    const { cluster } = postgres;
    const clock = manualClock(1_000_000);
    const faults: (string | null)[] = [];
    const storage = await createPostgresStorage({ url: cluster.url, clock, retryAfterS: 5, retention: RETENTION, onFault: (f) => faults.push(f?.kind ?? null) });
    postgres.defer(() => storage.close().catch(() => undefined));
    expect(await storage.health.notReadyReason(clock.now())).toBeNull();
    expect(await storage.health.admit(clock.now())).toBe(0);
    await cluster.stop();
    const write = await storage.telemetry.insertBatch(batch([windowEvent()]), clock.now()).catch((err: unknown) => err);
    const fault = await storage.health.writeFailed(write, clock.now());
    expect(fault?.kind).toBe('unreachable');
    expect(await storage.health.admit(clock.now())).toBe(5);
    expect(await storage.health.notReadyReason(clock.now())).toMatch(/cannot be reached|does not answer/);
    clock.advance(5_000);
    expect(await storage.health.admit(clock.now())).toBe(0);
    await storage.health.writeSucceeded();
    expect(faults).toEqual(['unreachable', null]);
  });
});
