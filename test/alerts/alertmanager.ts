import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BINARY = '/usr/bin/prometheus-alertmanager';

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
  if (!existsSync(BINARY)) return null;
  const dir = mkdtempSync(join(tmpdir(), 'bbx-am-'));
  writeFileSync(join(dir, 'am.yml'), config);
  const child: ChildProcess = spawn(
    BINARY,
    [`--config.file=${join(dir, 'am.yml')}`, `--storage.path=${join(dir, 'data')}`, '--web.listen-address=127.0.0.1:0', '--cluster.listen-address='],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const port = await new Promise<number | null>((resolve) => {
    let log = '';
    const timer = setTimeout(() => resolve(null), 15_000);
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
    return null;
  }
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return { url, close: stop };
    } catch {
      // Not accepting yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  return null;
}
