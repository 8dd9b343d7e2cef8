import type { TestProject } from 'vitest/node';
import { postgresAvailable, startPostgresCluster } from './postgres-cluster.ts';

/**
 * Vitest global setup: one PostgreSQL cluster for the whole run (a cluster start is an initdb
 * and a server start, seconds each on a busy machine; ~15 files used to pay it each). Test
 * files reach it through usePostgresCluster(), each in databases of its own.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (!postgresAvailable()) {
    project.provide('postgresBase', null);
    return;
  }
  // Two forks at a time, each file with a few storages and their pools.
  const cluster = await startPostgresCluster({ maxConnections: 200 });
  project.provide('postgresBase', cluster.url.slice(0, cluster.url.lastIndexOf('/')));
  return () => cluster.stop();
}
