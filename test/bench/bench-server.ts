/** The real `breakerbox server` process the HTTP benchmarks measure, on a temp database. */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Starts `bin/breakerbox.js server` on a free port with a rate limit out of the way; `admin`
 * is its admin token. `nodeArgs` go before the script (e.g. `--cpu-prof`).
 */
export async function startServer(dir: string, admin: string, nodeArgs: string[] = []): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const config = join(dir, 'bench.yaml');
  writeFileSync(config, 'ingest:\n  rate_limit:\n    per_second: 100000\n    burst: 100000\n');
  const child = spawn(process.execPath, [...nodeArgs, join(import.meta.dirname, '..', '..', 'bin', 'breakerbox.js'), 'server', '--port', '0'], {
    env: { ...process.env, BREAKERBOX_DB: join(dir, 'http.db'), BREAKERBOX_ADMIN_TOKEN: admin, BREAKERBOX_LOG_LEVEL: 'warn', BREAKERBOX_CONFIG: config },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () => new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/** A process's peak resident memory in MB (Linux). */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}
