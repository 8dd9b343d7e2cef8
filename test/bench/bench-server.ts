/** The real `breakerbox server` process the HTTP benchmarks measure, on a temp database. */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How a benchmark wants its server. */
export interface BenchServerOptions {
  /** Node flags before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Keep the default ingest rate limit instead of lifting it out of the way. */
  defaultLimits?: boolean;
  logLevel?: string;
  /** `kill -9` on stop instead of a graceful SIGTERM. */
  kill?: boolean;
  /** More YAML for the config file (top-level sections other than `ingest`). */
  extraConfig?: string;
  /** More lines of the `ingest` section, indented two spaces (e.g. `  keys:\n    live_per_token: 20000\n`). */
  ingestConfig?: string;
  /** `BREAKERBOX_DB`: a `postgres://` URL or a file path (default: `http.db` in the folder). */
  db?: string;
}

/** Starts `bin/breakerbox.js server` on a free port with a temp database in `dir` (or `o.db`); `admin` is its admin token. */
export async function startServer(dir: string, admin: string, o: BenchServerOptions = {}): Promise<{ url: string; port: number; pid: number; stop(): Promise<void> }> {
  const env: Record<string, string> = { BREAKERBOX_DB: o.db ?? join(dir, 'http.db'), BREAKERBOX_ADMIN_TOKEN: admin, BREAKERBOX_LOG_LEVEL: o.logLevel ?? 'warn' };
  if (!o.defaultLimits || o.extraConfig || o.ingestConfig) {
    env.BREAKERBOX_CONFIG = join(dir, 'bench.yaml');
    const lifted = o.defaultLimits ? '' : 'ingest:\n  rate_limit:\n    per_second: 100000\n    burst: 100000\n';
    const ingest = o.ingestConfig ? `${lifted || 'ingest:\n'}${o.ingestConfig}` : lifted;
    writeFileSync(env.BREAKERBOX_CONFIG, `${ingest}${o.extraConfig ?? ''}`);
  }
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), join(import.meta.dirname, '..', '..', 'bin', 'breakerbox.js'), 'server', '--port', '0'], {
    env: { ...process.env, ...env },
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
    port: Number(new URL(url).port),
    pid: child.pid!,
    stop: () => new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill(o.kill ? 'SIGKILL' : 'SIGTERM');
    }),
  };
}

/** A process's peak resident memory in MB (Linux). */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}
