/**
 * The storage engines a benchmark runs on: `--engine sqlite|postgres|both` (default both
 * when PostgreSQL is installed, else SQLite with a printed note). PostgreSQL runs on a
 * throwaway durable cluster (fsync and synchronous_commit on, as SQLite's synchronous=FULL).
 */
import { loadavg } from 'node:os';
import { postgresAvailable } from '../support/postgres-cluster.ts';

/** One engine a benchmark measures. */
export type BenchEngine = 'sqlite' | 'postgres';

/**
 * The engines asked for on the command line (`--engine X` or `--engine=X`); without one,
 * `sqliteOnlyNote` (when given) makes the default SQLite alone and is printed.
 */
export function benchEngines(argv: string[] = process.argv.slice(2), sqliteOnlyNote?: string): BenchEngine[] {
  const i = argv.findIndex((a) => a === '--engine' || a.startsWith('--engine='));
  const asked = i < 0 ? undefined : argv[i]!.includes('=') ? argv[i]!.split('=')[1] : argv[i + 1];
  if (asked !== undefined && !['sqlite', 'postgres', 'both'].includes(asked)) {
    throw new Error(`--engine ${asked}: expected sqlite, postgres or both`);
  }
  const pg = postgresAvailable();
  if (!asked) {
    if (sqliteOnlyNote) {
      console.log(`note: ${sqliteOnlyNote}`);
      return ['sqlite'];
    }
    if (pg) return ['sqlite', 'postgres'];
    console.log('note: PostgreSQL is not installed (no pg_ctl): SQLite only; install Debian\'s postgresql for both engines');
    return ['sqlite'];
  }
  if (asked !== 'sqlite' && !pg) throw new Error(`--engine ${asked}: PostgreSQL is not installed (no pg_ctl)`);
  return asked === 'both' ? ['sqlite', 'postgres'] : [asked as BenchEngine];
}

/** The machine's 1 / 5 / 15-minute load averages, printed with the figures (the machine is shared). */
export function loadLine(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' / ');
}
