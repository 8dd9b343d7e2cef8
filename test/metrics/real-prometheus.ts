import { join } from 'node:path';
import { startDaemon } from '../support/prometheus-daemon.ts';
import { REQUIRED_TOOLS, toolPath } from '../support/required-tools.ts';

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
  const binary = toolPath(REQUIRED_TOOLS.prometheus);
  const { daemon, log } = await startDaemon({
    binary,
    files: {
      'prometheus.yml': JSON.stringify({
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
    },
    args: (dir) => [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, '--web.listen-address=127.0.0.1:0'],
    startMs: 20_000,
    readyPolls: 100,
  });
  if (!daemon) throw new Error(`prometheus did not start:\n${log.slice(-2000)}`);
  const { url } = daemon;
  return {
    url,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: promql })}`);
      const body = (await res.json()) as { status: string; error?: string; data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] } };
      if (body.status !== 'success') throw new Error(`query ${promql}: ${body.error}`);
      return body.data.result;
    },
    close: daemon.stop,
  };
}
