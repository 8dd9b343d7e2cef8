// `npm run test:profile [-- <vitest filters>]`: runs vitest with the profile reporter and writes
// the slowest twenty files and tests into docs/testing.md (between the profile markers), with the
// wall and CPU time of the run and the machine's load. `--from <json>` re-renders a saved run.
// The "why" of each row is written by hand in docs/testing.md; a re-run keeps it for rows that
// stay and marks new rows for someone to explain.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { ProfileData } from '../test/support/profile-reporter.ts';

const ROOT = join(import.meta.dirname, '..');
const DOC = join(ROOT, 'docs', 'testing.md');
const START = '<!-- profile:start (written by npm run test:profile; edit only the "why" cells) -->';
const END = '<!-- profile:end -->';
const TOP = 20;
const UNEXPLAINED = '(not explained yet: read the test)';

/** CPU seconds used by this process's waited-for children (Linux /proc; undefined elsewhere). */
function childCpuSeconds(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // Fields 16 and 17 of stat(5) (cutime, cstime), in clock ticks (100 a second on Linux).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(', ');

interface Run {
  data: ProfileData;
  wallS?: number;
  cpuS?: number;
  loadBefore?: string;
  loadAfter?: string;
  exitCode?: number;
  filters: string[];
  /** When it ran (UTC, minutes) and on which Node.js. */
  at?: string;
  node?: string;
}

async function runVitest(filters: string[], out: string): Promise<Run> {
  const loadBefore = load();
  const cpu0 = childCpuSeconds();
  const t0 = performance.now();
  const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const args = [vitest, 'run', '--reporter=default', `--reporter=${join(ROOT, 'test', 'support', 'profile-reporter.ts')}`, ...filters];
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, BB_PROFILE_OUT: out } });
    child.on('exit', (code) => resolve(code ?? 1));
  });
  const wallS = (performance.now() - t0) / 1000;
  const cpu1 = childCpuSeconds();
  const data = JSON.parse(readFileSync(out, 'utf8')) as ProfileData;
  const cpuS = cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined;
  return { data, wallS, cpuS, loadBefore, loadAfter: load(), exitCode, filters, at: new Date().toISOString().slice(0, 16).replace('T', ' '), node: process.version };
}

/** The hand-written "why" cells of the current doc, by row key (file, or file › test). */
function reasons(doc: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of doc.split('\n')) {
    const cells = line.split(' | ');
    if (!line.startsWith('| ') || cells.length < 4) continue;
    const key = cells[1]!.replace(/`/g, '').trim();
    const why = cells.at(-1)!.replace(/\s*\|\s*$/, '').trim();
    if (why && why !== UNEXPLAINED) map.set(key, why);
  }
  return map;
}

const s = (ms: number) => (ms / 1000).toFixed(1);
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/`/g, "'");

function render(run: Run, why: Map<string, string>): string {
  const { files, tests } = run.data;
  const sum = (f: (x: (typeof files)[number]) => number) => files.reduce((a, x) => a + f(x), 0);
  const count = tests.length;
  const failed = tests.filter((t) => t.state === 'failed').length;
  const skipped = tests.filter((t) => t.state === 'skipped').length;
  const lines: string[] = [START, ''];
  lines.push(`Run of ${run.at ?? '?'} UTC on ${cpus().length} cores, Node.js ${run.node ?? '?'}` +
    (run.filters.length ? `, files matching \`${run.filters.join(' ')}\`` : ', the whole suite') + ':');
  lines.push('');
  lines.push(`- ${files.length} files, ${count} tests (${failed} failed, ${skipped} skipped).`);
  if (run.wallS !== undefined) lines.push(`- Wall time ${run.wallS.toFixed(0)} s; CPU time ${run.cpuS?.toFixed(0) ?? '?'} s (vitest and every process it waited for).`);
  if (run.loadBefore) lines.push(`- Load average (1, 5, 15 min) before: ${run.loadBefore}; after: ${run.loadAfter}.`);
  lines.push(`- Summed over files: import ${s(sum((f) => f.collectMs))} s, set-up ${s(sum((f) => f.prepareMs))} s, tests and hooks ${s(sum((f) => f.runMs))} s.`);
  lines.push('');
  lines.push(`### Slowest ${TOP} files`, '', '| # | file | total s | import s | tests+hooks s | tests | why |', '|---|---|---|---|---|---|---|');
  const byFile = [...files].sort((a, b) => b.collectMs + b.prepareMs + b.runMs - (a.collectMs + a.prepareMs + a.runMs)).slice(0, TOP);
  byFile.forEach((f, i) => {
    lines.push(`| ${i + 1} | \`${f.file}\` | ${s(f.collectMs + f.prepareMs + f.runMs)} | ${s(f.collectMs)} | ${s(f.runMs)} | ${f.tests} | ${why.get(f.file) ?? UNEXPLAINED} |`);
  });
  lines.push('', `### Slowest ${TOP} tests`, '', '| # | test | s | why |', '|---|---|---|---|');
  [...tests].sort((a, b) => b.ms - a.ms).slice(0, TOP).forEach((t, i) => {
    const key = `${t.file} › ${cell(t.name)}`;
    lines.push(`| ${i + 1} | \`${key}\` | ${s(t.ms)} | ${why.get(key) ?? UNEXPLAINED} |`);
  });
  lines.push('', END);
  return lines.join('\n');
}

const argv = process.argv.slice(2);
const fromAt = argv.indexOf('--from');
const artifacts = join(ROOT, 'test-artifacts');
mkdirSync(artifacts, { recursive: true });
let run: Run;
if (fromAt >= 0) {
  const saved = JSON.parse(readFileSync(argv[fromAt + 1]!, 'utf8')) as Run;
  run = saved;
} else {
  const out = join(artifacts, 'profile-raw.json');
  run = await runVitest(argv, out);
  writeFileSync(join(artifacts, 'profile.json'), JSON.stringify(run));
  console.log(`profile: wall ${run.wallS?.toFixed(0)} s, CPU ${run.cpuS?.toFixed(0)} s, load before ${run.loadBefore}, after ${run.loadAfter}; saved test-artifacts/profile.json`);
}
const doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : `# Testing\n\n${START}\n${END}\n`;
const table = render(run, reasons(doc));
if (run.filters.length && fromAt < 0) {
  // A partial run prints its table and leaves the doc (which describes the whole suite) alone.
  console.log(table);
} else {
  const a = doc.indexOf(START.slice(0, 20));
  const b = doc.indexOf(END);
  writeFileSync(DOC, a >= 0 && b > a ? doc.slice(0, a) + table + doc.slice(b + END.length) : `${doc}\n${table}\n`);
  console.log(`profile: wrote ${DOC}`);
}
process.exitCode = run.exitCode ?? 0;
