import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { join } from 'node:path';

/** The `breakerbox` command. */
export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'breakerbox.js');
/** The admin secret every harness process is started with. */
export const ADMIN = 'test-admin-secret-0123456789';

/** A running `breakerbox server` process. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
}

/**
 * Starts `breakerbox server` as a real process on a free port and waits for its URL.
 * `cleanups` receives a SIGKILL for the process.
 */
export async function startProcess(
  db: string,
  cleanups: (() => void)[],
  options: { env?: Record<string, string>; spawn?: SpawnOptions; /** A command the server runs under (e.g. `setpriv …`). */ wrap?: readonly string[] } = {},
): Promise<ServerProcess> {
  const [command, ...args] = [...(options.wrap ?? []), process.execPath, BIN, 'server', '--port', '0'];
  const child = spawn(command!, args, {
    env: { ...process.env, BREAKERBOX_DB: db, BREAKERBOX_ADMIN_TOKEN: ADMIN, BREAKERBOX_LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.spawn,
  });
  cleanups.push(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
  return { child, url, output: () => out };
}

/** Resolves with the exit code once the process ends. */
export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

/** Polls `check` until it answers true (a condition reached, not a timing measured). */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, tries = 200, everyMs = 50): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`never happened: ${what}`);
}
