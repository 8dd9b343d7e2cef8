import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BINARY = '/usr/bin/prometheus';

/** A real Prometheus on a loopback port chosen by the kernel, with temp storage. */
export interface RealPrometheus {
  url: string;
  /** An instant query through the HTTP API; the vector result. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  close(): Promise<void>;
}

/**
 * Starts the Debian `prometheus` scraping `target` (host:port) every second with a bearer
 * token and loading `ruleFiles`. Throws when it is not installed or not up within 20 s:
 * the Prometheus integration cannot be tested without it (`.ci/run` installs it).
 */
export async function startPrometheus(options: { target: string; token: string; ruleFiles: string[] }): Promise<RealPrometheus> {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is not installed (Debian package "prometheus")`);
  const dir = mkdtempSync(join(tmpdir(), 'bbx-prom-'));
  writeFileSync(
    join(dir, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: options.ruleFiles,
      scrape_configs: [
        {
          job_name: 'breakerbox',
          metrics_path: '/metrics',
          authorization: { type: 'Bearer', credentials: options.token },
          static_configs: [{ targets: [options.target] }],
        },
      ],
    }),
  );
  const child: ChildProcess = spawn(
    BINARY,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, '--web.listen-address=127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const port = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), 20_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /Listening on" address=127\.0\.0\.1:(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', onData);
    child.once('exit', () => resolve(null));
    child.once('error', () => resolve(null));
  });
  if (port === null) {
    await stop();
    throw new Error(`prometheus did not start:\n${log.slice(-2000)}`);
  }
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // Not accepting yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: promql })}`);
      const body = (await res.json()) as { status: string; error?: string; data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] } };
      if (body.status !== 'success') throw new Error(`query ${promql}: ${body.error}`);
      return body.data.result;
    },
    close: stop,
  };
}
