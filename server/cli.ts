import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from './config/load.ts';
import { startServer } from './main.ts';
import { systemClock } from './clock.ts';
import { openStorage } from './storage/open-storage.ts';
import { parseRights } from './storage/storage.ts';
import { FLEET_USAGE, fleetCommand } from './fleet/fleet-cli.ts';
import { DRILL_USAGE, drillCommand } from './drills/drill-cli.ts';
import { EXIT_USAGE, cliFailure } from './cli-errors.ts';

/** Every command and subcommand `breakerbox` runs (its help and the CLI tests list them from here). */
export const COMMANDS = [
  ['server'], ['migrate'], ['token', 'create'], ['token', 'list'], ['token', 'revoke'],
  ['fleet', 'drain'], ['fleet', 'release'], ['fleet', 'list'],
  ['drill', 'run'], ['drill', 'stop'], ['drill', 'show'], ['drill', 'list'], ['probe'],
] as const;

const USAGE: Record<string, string> = {
  main: `usage: breakerbox <command> [options]

commands:
  server            run the collector and dashboard (what "npm start" runs)
  migrate           apply database migrations and exit
  token create      create a token: --name N --rights ingest,read,admin (prints the secret once)
  token list        list tokens (never their secrets)
  token revoke N    revoke the token named N
  fleet drain       take one key out fleet-wide: --key K --reason R --expires 30m (admin)
  fleet release     end a drain: --key K --reason R (admin)
  fleet list        a key's fleet decisions: --key K
  drill run         rehearse failures on a staging service: --service S [--drills 429,ttft] (admin;
                    exits 0 when every drill passed)
  probe             run the prober (see "breakerbox probe --help")

"breakerbox <command> --help" describes each command. A command that fails says why in one
line on stderr (the flag, setting or URL concerned) and exits 2 when it was given something
it cannot use, 1 when it ran and failed (collector or database unreachable, a failed drill).`,
  server: `usage: breakerbox server [--port N] [--host H] [--db PATH] [--config FILE]

  --port    BREAKERBOX_PORT    TCP port (default 7070)
  --host    BREAKERBOX_HOST    interface (default 127.0.0.1)
  --db      BREAKERBOX_DB      SQLite file (default ./data/breakerbox.db, folder created),
                               or a postgres:// URL for several collectors on one database
  --config  BREAKERBOX_CONFIG  YAML or JSON file with any other setting
            BREAKERBOX_ADMIN_TOKEN  ensure an admin token with this secret (automation)
            BREAKERBOX_ALERT_INTERVAL_S  alert evaluation period in seconds (default 15, 0 = off)

On a first start with no token, an admin token is created and printed once.`,
  migrate: `usage: breakerbox migrate [--db PATH] [--config FILE]

Applies pending migrations in order, prints what it did, and exits.`,
  token: `usage: breakerbox token create --name N --rights ingest,read,admin
       breakerbox token list
       breakerbox token revoke NAME
       (each also takes --db PATH and --config FILE)

Rights: ingest (push telemetry), read (APIs, dashboard, /metrics), admin (all of them).`,
  fleet: FLEET_USAGE,
  drill: DRILL_USAGE,
};

const COMMON = {
  db: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs `breakerbox <argv...>` and resolves to the exit code. */
export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'server':
        return await serverCommand(rest, env);
      case 'migrate':
        return await migrateCommand(rest, env);
      case 'token':
        return await tokenCommand(rest, env);
      case 'fleet':
        return await fleetCommand(rest, env);
      case 'drill':
        return await drillCommand(rest, env);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE.main);
        return command === undefined ? 2 : 0;
      default:
        console.error(`breakerbox: unknown command "${command}" (see "breakerbox --help")`);
        return EXIT_USAGE;
    }
  } catch (err) {
    const failure = cliFailure(err, command ?? '');
    console.error(failure.line);
    return failure.code;
  }
}

function flagsOf(values: Record<string, unknown>): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (typeof v === 'string') flags[k] = v;
  return flags;
}

async function serverCommand(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const { values } = parseArgs({ args, options: { ...COMMON, port: { type: 'string' }, host: { type: 'string' } } });
  if (values.help) return help('server');
  const config = loadConfig({ env, flags: flagsOf(values) });
  await startServer(config);
  // The server runs until a signal closes it; main.ts exits the process then.
  return new Promise<number>(() => {});
}

async function migrateCommand(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const { values } = parseArgs({ args, options: COMMON });
  if (values.help) return help('migrate');
  const config = loadConfig({ env, flags: flagsOf(values) });
  const storage = await openStorage(config, systemClock);
  try {
    const report = storage.migrations;
    console.log(
      report.applied.length
        ? `applied ${report.applied.length} migration(s): ${report.applied.join(', ')}`
        : `nothing to apply (${report.alreadyApplied} migration(s) already applied)`,
    );
    return 0;
  } finally {
    await storage.close();
  }
}

async function tokenCommand(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { ...COMMON, name: { type: 'string' }, rights: { type: 'string' } },
  });
  if (values.help || sub === undefined || sub === '--help' || sub === '-h') return help('token', sub === undefined ? 2 : 0);
  const config = loadConfig({ env, flags: flagsOf({ db: values.db, config: values.config }) });
  const storage = await openStorage(config, systemClock);
  try {
    const { tokens } = storage;
    switch (sub) {
      case 'create': {
        if (!values.name) throw new ConfigError('token create: --name is required');
        if (!/^[\w.@-]{1,100}$/.test(values.name)) throw new ConfigError('token create: --name must be 1-100 of letters, digits, _ . @ -');
        if ((await tokens.list()).some((t) => t.name === values.name)) {
          console.error(`breakerbox: token create: a token named "${values.name}" already exists`);
          return 1;
        }
        const rights = parseRights(values.rights ?? '');
        const { secret } = await tokens.create(values.name, rights);
        console.log(secret);
        console.error(`token "${values.name}" created with rights ${rights.join(',')}; the secret above is shown only once`);
        return 0;
      }
      case 'list': {
        const list = await tokens.list();
        if (list.length === 0) console.log('no tokens');
        for (const t of list) {
          const state = t.revokedAt ? `revoked ${new Date(t.revokedAt).toISOString()}` : 'active';
          console.log(`${t.name}\t${t.rights.join(',')}\tcreated ${new Date(t.createdAt).toISOString()}\t${state}`);
        }
        return 0;
      }
      case 'revoke': {
        const name = positionals[0] ?? values.name;
        if (!name) throw new ConfigError('token revoke: give the token name, e.g. "breakerbox token revoke ci"');
        if (!(await tokens.revoke(name))) {
          console.error(`breakerbox: no active token named "${name}"`);
          return 1;
        }
        console.log(`token "${name}" revoked`);
        return 0;
      }
      default:
        console.error(`breakerbox: unknown token command "${sub}" (see "breakerbox token --help")`);
        return EXIT_USAGE;
    }
  } catch (err) {
    if (err instanceof Error && !(err instanceof ConfigError) && err.message.startsWith('--rights')) {
      throw new ConfigError(`token create: ${err.message}`);
    }
    throw err;
  } finally {
    await storage.close();
  }
}

function help(command: string, code = 0): number {
  console.log(USAGE[command]);
  return code;
}
