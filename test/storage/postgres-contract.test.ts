import { afterAll, beforeAll } from 'vitest';
import { systemClock } from '../../server/clock.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { RETENTION, postgresAvailable, startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { storageContract } from './contract.ts';

// One cluster for the file, a fresh database for each test of the contract.
let cluster: PostgresCluster | undefined;
let counter = 0;
beforeAll(async () => {
  if (postgresAvailable()) cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

if (postgresAvailable()) {
  storageContract('PostgreSQL', async () => {
    const url = await cluster!.createDatabase(`contract_${++counter}`);
    const storage = await createPostgresStorage({ url, clock: systemClock, retryAfterS: 1, retention: RETENTION });
    return { storage, dispose: () => storage.close() };
  });
}
