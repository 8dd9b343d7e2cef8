import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A program outside node_modules that some tests run, and how a machine gets it. */
export interface RequiredTool {
  /** The name the message gives it. */
  name: string;
  /** Absolute paths tried first (Debian's, then Homebrew's), in order. */
  paths: readonly string[];
  /** Names looked up on PATH after those. */
  onPath: readonly string[];
  /** Debian package that installs it (what `.ci/run` installs). */
  apt: string;
  /** Homebrew's install arguments on macOS. */
  brew: string;
}

/** Debian puts PostgreSQL's server binaries outside PATH, one folder per major version. */
const pgDirs = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin', '/opt/homebrew/opt/postgresql@17/bin', '/usr/local/opt/postgresql@17/bin'];

/**
 * Every tool the suite needs (the one list: the tests look their binaries up through it and
 * `npm test` checks it first, test/support/check-tools.ts).
 */
export const REQUIRED_TOOLS = {
  /** Dashboard end-to-end tests (playwright-core drives it). */
  chromium: { name: 'chromium', paths: ['/usr/bin/chromium'], onPath: ['chromium'], apt: 'chromium', brew: '--cask chromium' },
  /** Checks /metrics and the alert rules. */
  promtool: { name: 'promtool', paths: [], onPath: ['promtool'], apt: 'prometheus', brew: 'prometheus' },
  /** Scrapes a collector in test/metrics/prometheus.test.ts. */
  prometheus: { name: 'prometheus', paths: ['/usr/bin/prometheus'], onPath: ['prometheus'], apt: 'prometheus', brew: 'prometheus' },
  /** Receives the Alertmanager notifier's pages. */
  alertmanager: { name: 'prometheus-alertmanager', paths: ['/usr/bin/prometheus-alertmanager'], onPath: ['prometheus-alertmanager', 'alertmanager'], apt: 'prometheus-alertmanager', brew: 'alertmanager' },
  /** Throwaway PostgreSQL clusters (test/support/postgres-cluster.ts). */
  initdb: { name: 'initdb', paths: pgDirs.map((d) => join(d, 'initdb')), onPath: ['initdb'], apt: 'postgresql', brew: 'postgresql@17' },
  pg_ctl: { name: 'pg_ctl', paths: pgDirs.map((d) => join(d, 'pg_ctl')), onPath: ['pg_ctl'], apt: 'postgresql', brew: 'postgresql@17' },
} as const satisfies Record<string, RequiredTool>;

/** How a lookup sees the machine: its PATH and whether a file is an executable. */
export interface ToolLookup {
  path: string | undefined;
  isExecutable(file: string): boolean;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** This process's view: process.env.PATH and the real file system. */
export const HOST_LOOKUP: ToolLookup = { get path() { return process.env.PATH; }, isExecutable };

/** Where `tool` is on this machine (absolute path), or undefined when it is not installed. */
export function findTool(tool: RequiredTool, lookup: ToolLookup = HOST_LOOKUP): string | undefined {
  for (const file of tool.paths) if (lookup.isExecutable(file)) return file;
  const dirs = (lookup.path ?? '').split(delimiter).filter(Boolean);
  for (const name of tool.onPath) for (const dir of dirs) if (lookup.isExecutable(join(dir, name))) return join(dir, name);
  return undefined;
}

/** Where `tool` is; throws naming it and its package when it is not installed. */
export function toolPath(tool: RequiredTool): string {
  const file = findTool(tool);
  if (!file) throw new Error(`${tool.name} is not installed (Debian package "${tool.apt}"; ${installCommand([tool])})`);
  return file;
}

/** The tools of REQUIRED_TOOLS this machine lacks. */
export function missingTools(lookup: ToolLookup = HOST_LOOKUP): RequiredTool[] {
  return Object.values(REQUIRED_TOOLS).filter((tool) => !findTool(tool, lookup));
}

/** The command that installs `tools`: Homebrew's on macOS, else the apt line `.ci/run` uses. */
export function installCommand(tools: readonly RequiredTool[], platform: NodeJS.Platform = process.platform): string {
  const unique = (xs: string[]) => [...new Set(xs)];
  if (platform === 'darwin') {
    const casks = unique(tools.filter((t) => t.brew.startsWith('--cask ')).map((t) => t.brew.slice(7)));
    const formulae = unique(tools.filter((t) => !t.brew.startsWith('--cask ')).map((t) => t.brew));
    return [formulae.length ? `brew install ${formulae.join(' ')}` : '', casks.length ? `brew install --cask ${casks.join(' ')}` : ''].filter(Boolean).join(' && ');
  }
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  return `${sudo}apt-get install -y ${unique(tools.map((t) => t.apt)).join(' ')}`;
}

/** The one line `npm test` prints when tools are missing: each of them, and the command that installs them. */
export function missingToolsMessage(missing: readonly RequiredTool[], platform: NodeJS.Platform = process.platform): string {
  return `npm test stopped before running: missing ${missing.map((t) => t.name).join(', ')}; install with: ${installCommand(missing, platform)}`;
}
