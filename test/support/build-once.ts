import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Vitest global setup: builds whatever is older than its sources, so spawned processes run current code. */
export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`build failed:\n${run.stdout}\n${run.stderr}`);
}
