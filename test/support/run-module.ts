/**
 * Runs an ES module the way a user's script runs: its own Node.js process, importing the
 * compiled packages (the global setup builds them), with nothing of the test process
 * keeping its event loop alive. Resolves with the exit code and the output.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..', '..');

/** The `file:` URL of a built package's entry, for a scratch module's `import`. */
export const builtEntry = (pkg: 'sdk' | 'probe' | 'protocol') => pathToFileURL(join(ROOT, pkg, 'dist', 'index.js')).href;

/** What the module's process did. */
export interface ModuleRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, ms (a bound asserted loosely: the deadline under test is seconds). */
  ms: number;
}

/** Writes `source` as a scratch `.mjs` and runs it with `args` on `node` (default this one); kills it after `killAfterMs`. */
export async function runModule(source: string, args: string[] = [], killAfterMs = 60_000, node = process.execPath): Promise<ModuleRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bbx-module-'));
  const file = join(dir, 'script.mjs');
  writeFileSync(file, source);
  const began = Date.now();
  try {
    const child = spawn(node, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    clearTimeout(kill);
    return { code, stdout, stderr, ms: Date.now() - began };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
