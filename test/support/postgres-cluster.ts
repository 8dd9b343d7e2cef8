import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { findTool, REQUIRED_TOOLS } from './required-tools.ts';

const run = promisify(execFile);

/** A retention policy for storages opened in tests (the configuration's defaults). */
export const RETENTION = { rawDays: 7, rollupDays: 90, batchIdHours: 48, alertHistoryDays: 30, silenceDays: 7 };

/** A throwaway PostgreSQL cluster on a loopback port, for one test file. */
export interface PostgresCluster {
  /** `postgres://` URL of the database made at start (`breakerbox`). */
  url: string;
  /** Creates another empty database in the cluster and returns its URL (one per test keeps tests apart). */
  createDatabase(name: string): Promise<string>;
  /** Stops the server at once and removes its folder. */
  stop(): Promise<void>;
}

/** Where initdb or pg_ctl is (Debian keeps them off PATH: test/support/required-tools.ts looks). */
function binary(name: 'initdb' | 'pg_ctl'): string {
  return findTool(REQUIRED_TOOLS[name]) ?? name;
}

/** True when this machine can start a cluster (the tests skip with a reason otherwise). */
export function postgresAvailable(): boolean {
  try {
    execFileSync(binary('pg_ctl'), ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A port the kernel just handed out on loopback (PostgreSQL cannot be told to pick one itself). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL refuses to run as root, and CI runs the tests as root: then initdb and pg_ctl
 * run as `postgres` (or `nobody`) through runuser, in a folder that user owns.
 */
function asUser(): { wrap: (cmd: string, args: string[]) => [string, string[]]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { wrap: (cmd, args) => [cmd, args] };
  for (const user of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
      const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
      return { wrap: (cmd, args) => ['runuser', ['-u', user, '--', cmd, ...args]], uid, gid };
    } catch {
      // No such user; try the next.
    }
  }
  throw new Error('running as root and neither a "postgres" nor a "nobody" user exists to run PostgreSQL as');
}

/** CREATE or DROP (closing its sessions) database `name` in the cluster at `base`; resolves with its URL. */
async function adminQuery(base: string, verb: 'CREATE' | 'DROP', name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name) || name.length > 63) throw new Error(`database name "${name}": up to 63 lower-case letters, digits and _`);
  const client = new pg.Client({ connectionString: `${base}/postgres` });
  await client.connect();
  try {
    await client.query(verb === 'CREATE' ? `CREATE DATABASE ${name}` : `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
  return `${base}/${name}`;
}

/**
 * Starts a cluster: `initdb` in a temp folder, `pg_ctl start` on a free loopback port with
 * the unix socket in that folder (never /var/run/postgresql), durability off (fsync=off: a
 * test cluster does not survive its test anyway; `durable` keeps PostgreSQL's defaults, for
 * benchmarks set against SQLite's synchronous=FULL), and a `breakerbox` database.
 */
export async function startPostgresCluster(settings: { durable?: boolean; maxConnections?: number } = {}): Promise<PostgresCluster> {
  const user = asUser();
  const dir = mkdtempSync(join(tmpdir(), 'bbx-pg-'));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!);
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const exec = (name: 'initdb' | 'pg_ctl', args: string[]) => {
    const [cmd, argv] = user.wrap(binary(name), args);
    return run(cmd, argv, { timeout: 60_000 });
  };
  const stop = async () => {
    if (existsSync(join(data, 'postmaster.pid'))) {
      await exec('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await exec('initdb', ['-D', data, '-U', 'breakerbox', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
    let port = 0;
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      const options = [
        `-p ${port}`, `-k ${dir}`, "-c listen_addresses='127.0.0.1'",
        ...(settings.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
        '-c shared_buffers=32MB', `-c max_connections=${settings.maxConnections ?? 60}`,
      ].join(' ');
      try {
        await exec('pg_ctl', ['start', '-D', data, '-l', log, '-w', '-t', '60', '-o', options]);
        break;
      } catch (err) {
        // Another process may have taken the port between freePort() and the bind.
        if (attempt >= 2) throw err;
      }
    }
    const base = `postgres://breakerbox@127.0.0.1:${port}`;
    const createDatabase = (name: string) => adminQuery(base, 'CREATE', name);
    const url = await createDatabase('breakerbox');
    return { url, createDatabase, stop };
  } catch (err) {
    const text = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
    await stop();
    throw new Error(`could not start a PostgreSQL cluster: ${(err as Error).message}\n${text}`);
  }
}

/**
 * The one cluster a vitest run shares (test/support/shared-postgres.ts starts it in the
 * global setup): its base URL, or null when PostgreSQL is not installed or the run has none.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    postgresBase: string | null;
  }
}

/** What `usePostgresCluster()` gives a test file. */
export interface PostgresTestCluster {
  /** False when this machine has no PostgreSQL: the file's PostgreSQL tests skip (`describe.skipIf(!postgres.available)`). */
  readonly available: boolean;
  /** The file's running cluster (read it inside tests and hooks, not at import). */
  readonly cluster: PostgresCluster;
  /** A fresh empty database `<prefix>_<n>`, one per call (tests apart, one cluster start per file). */
  database(prefix: string): Promise<string>;
  /**
   * Runs `cleanup` at the end of the file, before the cluster stops; cleanups run last
   * registered first (a storage opened on a folder closes before the folder goes), each
   * even if one before it failed.
   */
  defer(cleanup: () => unknown): void;
}

/**
 * The lifecycle of a PostgreSQL test file: by default its databases live in the run's shared
 * cluster (one start per run, not per file; each file's databases get a tag of their own and
 * are dropped after it). `own: true` starts a cluster for the file alone, for tests that stop or
 * break the server itself; `durable` (PostgreSQL's default durability) implies one too.
 * After the file's tests it runs the registered cleanups, then stops the cluster or drops the
 * file's databases. Call it at the top level of the file.
 */
export function usePostgresCluster(settings: { durable?: boolean; own?: boolean } = {}): PostgresTestCluster {
  const available = postgresAvailable();
  const sharedBase = available && !settings.own && !settings.durable ? inject('postgresBase') : null;
  // Sequential files reuse nothing of each other's; concurrent ones must not meet: a random tag.
  const tag = randomBytes(4).toString('hex');
  const created: string[] = [];
  const cleanups: (() => unknown)[] = [];
  let cluster: PostgresCluster | undefined;
  let counter = 0;
  beforeAll(async () => {
    if (!available) return;
    if (sharedBase) {
      const base = sharedBase;
      cluster = {
        get url(): string {
          throw new Error('a file on the shared cluster has no database of its own: use postgres.database(), or usePostgresCluster({ own: true })');
        },
        createDatabase: (name) => {
          created.push(name);
          return adminQuery(base, 'CREATE', name);
        },
        stop: () => Promise.reject(new Error('the shared cluster cannot be stopped by a test file: use usePostgresCluster({ own: true })')),
      };
    } else {
      cluster = await startPostgresCluster(settings);
    }
  });
  afterAll(async () => {
    const errors: unknown[] = [];
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        errors.push(err);
      }
    }
    if (sharedBase) {
      for (const name of created.splice(0)) await adminQuery(sharedBase, 'DROP', name).catch((err: unknown) => errors.push(err));
    } else {
      await cluster?.stop();
    }
    if (errors.length) throw errors[0];
  });
  const started = () => {
    if (!cluster) throw new Error(available ? 'the PostgreSQL cluster is not started yet (use it inside tests or hooks)' : 'no PostgreSQL on this machine');
    return cluster;
  };
  return {
    available,
    get cluster() {
      return started();
    },
    database: (prefix) => started().createDatabase(sharedBase ? `${prefix}_${tag}_${++counter}` : `${prefix}_${++counter}`),
    defer: (cleanup) => void cleanups.push(cleanup),
  };
}
