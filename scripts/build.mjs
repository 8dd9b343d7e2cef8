#!/usr/bin/env node
// Builds every package of the repository: tsc for @breakerbox/protocol, @breakerbox/sdk,
// @breakerbox/probe and the collector (in dependency order), vite for the dashboard.
//   node scripts/build.mjs               clean build of everything
//   node scripts/build.mjs --if-stale    only what is older than its sources (npm start, tests)
//   node scripts/build.mjs --if-possible like a clean build, but a no-op with a note when the
//                                        dev dependencies are not installed (npm ci --omit=dev)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv[2] ?? '';
const require = createRequire(join(root, 'package.json'));

function resolveBin(pkg, bin) {
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`)), bin);
  } catch {
    return undefined;
  }
}
const tsc = resolveBin('typescript', 'bin/tsc');
const vite = resolveBin('vite', 'bin/vite.js');
if (!tsc || !vite) {
  const msg = 'breakerbox: the build tools (typescript, vite) are dev dependencies and are not installed; run `npm install` (without --omit=dev) to build.';
  if (mode === '--if-possible') {
    console.warn(msg);
    process.exit(0);
  }
  const built = ['protocol/dist/index.js', 'sdk/dist/index.js', 'probe/dist/index.js', 'dist/server/cli.js', 'dashboard/dist/index.html'].every((f) => existsSync(join(root, f)));
  if (built) process.exit(0);
  console.error(msg);
  process.exit(1);
}

/** Newest modification time of the files below `dir` matching `keep`, skipping outputs. */
function newest(dir, keep) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) t = Math.max(t, newest(path, keep));
    else if (keep(entry.name)) t = Math.max(t, statSync(path).mtimeMs);
  }
  return t;
}
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);
const isSource = (name) => name.endsWith('.ts') || name.endsWith('.tsx') || name === 'package.json' || name.startsWith('tsconfig');

function run(label, args, env = {}) {
  const started = Date.now();
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`breakerbox build: ${label} failed`);
    process.exit(r.status ?? 1);
  }
  console.log(`built ${label} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * tsc rewrites `./x.ts` to `./x.js` in emitted JavaScript but leaves declarations as
 * written; a consumer's compiler must find `./x.d.ts` through `./x.js`, so rewrite them too.
 */
function rewriteDeclarations(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) rewriteDeclarations(path);
    else if (entry.name.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8');
      const out = text.replace(/((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.tsx?(['"])/g, '$1$2.js$3');
      if (out !== text) writeFileSync(path, out);
    }
  }
}

const packages = [
  { label: '@breakerbox/protocol', dir: 'protocol', out: 'protocol/dist' },
  { label: '@breakerbox/sdk', dir: 'sdk', out: 'sdk/dist' },
  { label: '@breakerbox/probe', dir: 'probe', out: 'probe/dist' },
  { label: 'collector', dir: 'server', out: 'dist/server' },
];
const stale = mode === '--if-stale';
// A package is rebuilt when it or one it depends on (earlier in the list) changed.
let upstreamChanged = false;
for (const p of packages) {
  const stamp = join(root, p.out, '.built');
  const changed = !stale || upstreamChanged || newest(join(root, p.dir), isSource) > mtime(stamp) || mtime(join(root, 'tsconfig.json')) > mtime(stamp);
  if (!changed) continue;
  upstreamChanged = true;
  rmSync(join(root, p.out), { recursive: true, force: true });
  run(p.label, [tsc, '-p', join(p.dir, 'tsconfig.build.json')]);
  rewriteDeclarations(join(root, p.out));
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

const dashboardIndex = join(root, 'dashboard', 'dist', 'index.html');
const isDashboardSource = (name) => /\.(tsx?|css|html|json)$/.test(name);
if (!stale || newest(join(root, 'dashboard'), isDashboardSource) > mtime(dashboardIndex)) {
  run('dashboard', [vite, 'build', '--config', 'dashboard/vite.config.ts', '--logLevel', 'warn'], { NODE_ENV: 'production' });
}
