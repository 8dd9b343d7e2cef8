import { systemClock } from '../../server/clock.ts';
import { createPostgresStorage } from '../../server/storage/postgres/postgres-storage.ts';
import { RETENTION, usePostgresCluster } from '../support/postgres-cluster.ts';
import { storageContract } from './contract.ts';

// One cluster for the file, a fresh database for each test of the contract.
const postgres = usePostgresCluster();

if (postgres.available) {
  storageContract('PostgreSQL', async () => {
    const url = await postgres.database('contract');
    const storage = await createPostgresStorage({ url, clock: systemClock, retryAfterS: 1, retention: RETENTION });
    return { storage, dispose: () => storage.close() };
  });
}
