import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { connectBrowser } from '../support/chromium.ts';
import { startCollector, type TestCollector } from './server-harness.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DIST = join(ROOT, 'dashboard', 'dist');
/** Screenshots and other artifacts of the browser tests (gitignored). */
export const ARTIFACTS = join(ROOT, 'test-artifacts');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const lockPath = () => join(tmpdir(), `breakerbox-dashboard-build-${Buffer.from(ROOT).toString('base64url').slice(-40)}.lock`);

/** Newest modification time of the dashboard's sources (src, index.html, vite config). */
function newestSource(): number {
  const dir = join(ROOT, 'dashboard');
  const walk = (path: string): number =>
    statSync(path).isDirectory() ? Math.max(0, ...readdirSync(path).map((f) => walk(join(path, f)))) : statSync(path).mtimeMs;
  return Math.max(walk(join(dir, 'src')), walk(join(dir, 'index.html')), walk(join(dir, 'vite.config.ts')));
}

/**
 * Builds the dashboard when `dashboard/dist` is missing (or older than its sources), so a
 * lone `npx vitest run test/dashboard` works on a fresh clone and never tests a stale build.
 * A lock directory keeps parallel test files from building into the same folder at once.
 */
export async function ensureBuilt(): Promise<void> {
  const index = join(DIST, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs < newestSource() && !existsSync(lockPath())) rmSync(index, { force: true });
  const lock = lockPath();
  for (let waited = 0; !existsSync(index) || existsSync(lock); waited += 250) {
    if (!existsSync(lock) && !existsSync(index)) {
      try {
        mkdirSync(lock);
      } catch {
        continue;
      }
      try {
        const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
        const run = spawnSync(process.execPath, [vite, 'build', '--config', 'dashboard/vite.config.ts', '--logLevel', 'warn'], {
          cwd: ROOT,
          encoding: 'utf8',
          // vitest sets NODE_ENV=test, which would make vite bundle React's development build.
          env: { ...process.env, NODE_ENV: 'production' },
        });
        if (run.status !== 0) throw new Error(`dashboard build failed:\n${run.stdout}\n${run.stderr}`);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      return;
    }
    // Another file is building; a lock older than two minutes is left over from a killed run.
    if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
    if (waited > 120_000) throw new Error('timed out waiting for the dashboard build');
    await sleep(250);
  }
}

/** Gzip sizes of the built JavaScript: every chunk, and what the first page load fetches. */
export function bundleSizes(): { totalGzipKb: number; initialGzipKb: number; files: number } {
  const assets = join(DIST, 'assets');
  const js = readdirSync(assets).filter((f) => f.endsWith('.js'));
  const gz = (f: string) => gzipSync(readFileSync(join(assets, f)), { level: 9 }).length;
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const initial = js.filter((f) => html.includes(f));
  const kb = (n: number) => Math.round((n / 1024) * 10) / 10;
  return { totalGzipKb: kb(js.reduce((s, f) => s + gz(f), 0)), initialGzipKb: kb(initial.reduce((s, f) => s + gz(f), 0)), files: js.length };
}

/** The run's shared Chromium (test/support/chromium.ts); open a context per test, close the browser after the file. */
export async function launchBrowser(): Promise<Browser> {
  return connectBrowser();
}

/** Opens `url` and signs in through the form with `token`; resolves when the board is shown. */
/** The built dashboard, a fresh collector and Chromium, started side by side. */
export async function startBrowserAndCollector(): Promise<{ browser: Browser; collector: TestCollector }> {
  const [, collector, browser] = await Promise.all([ensureBuilt(), startCollector(), launchBrowser()]);
  return { browser, collector };
}

export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Read token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 10_000 });
}

/** A page's first screenshot folder entry; creates the artifacts folder. */
export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
