/**
 * `npm run bench`: runs every `test/bench/*-bench.ts` in its own process, one after
 * another, so each one's memory and CPU figures are its own. `npm run bench -- ingest`
 * runs only the benchmarks whose file name contains "ingest"; arguments after the name are
 * passed to each benchmark run (`npm run bench -- soak --minutes 2`).
 */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const filter = process.argv[2];
const passed = process.argv.slice(3);
const files = readdirSync(here)
  .filter((f) => f.endsWith('-bench.ts'))
  .filter((f) => !filter || f.includes(filter))
  .sort();

if (files.length === 0) {
  console.error(filter ? `no benchmark matches "${filter}"` : 'no benchmarks found in test/bench/');
  process.exit(1);
}
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const run = spawnSync(process.execPath, ['--expose-gc', join(root, 'bin', 'run-ts.js'), join(here, file), ...passed], {
    stdio: 'inherit',
    cwd: root,
  });
  if (run.status !== 0) {
    failed++;
    console.error(`${file} exited with ${run.status ?? run.signal}`);
  }
}
process.exit(failed ? 1 : 0);
