import { join } from 'node:path';
import { startDaemon } from '../support/prometheus-daemon.ts';
import { findTool, REQUIRED_TOOLS } from '../support/required-tools.ts';

/** A real Alertmanager on a loopback port chosen by the kernel, with temp storage. */
export interface RealAlertmanager {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the Debian `prometheus-alertmanager` (with `config`, YAML) if it is installed and comes up within 15 s;
 * resolves null otherwise (the caller then validates against the v2 schema itself).
 */
export async function startAlertmanager(config = "route:\n  receiver: 'null'\nreceivers:\n  - name: 'null'\n"): Promise<RealAlertmanager | null> {
  const binary = findTool(REQUIRED_TOOLS.alertmanager);
  if (!binary) return null;
  const { daemon } = await startDaemon({
    binary,
    files: { 'am.yml': config },
    args: (dir) => [`--config.file=${join(dir, 'am.yml')}`, `--storage.path=${join(dir, 'data')}`, '--web.listen-address=127.0.0.1:0', '--cluster.listen-address='],
    startMs: 15_000,
    readyPolls: 50,
  });
  return daemon && { url: daemon.url, close: daemon.stop };
}
