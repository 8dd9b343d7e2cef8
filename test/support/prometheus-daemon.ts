import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A Prometheus-family daemon (prometheus, alertmanager) started for a test. */
export interface Daemon {
  url: string;
  /** Stops it and removes its temp folder. */
  stop(): Promise<void>;
}

/** How to start one: its binary, its files (written to a fresh temp folder), its flags. */
export interface DaemonSpec {
  binary: string;
  files: Record<string, string>;
  /** Flags, given the temp folder; must include `--web.listen-address=127.0.0.1:0`. */
  args(dir: string): string[];
  /** How long to wait for its "Listening on" log line. */
  startMs: number;
  /** How many 100 ms polls of `/-/ready` to wait after that. */
  readyPolls: number;
}

/**
 * Starts the daemon on a loopback port the kernel picks (read back from its log), then waits
 * until `/-/ready` answers. Resolves with the daemon, or with null and its log when it did
 * not come up (already stopped and cleaned up then).
 */
export async function startDaemon(spec: DaemonSpec): Promise<{ daemon: Daemon | null; log: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bbx-daemon-'));
  for (const [name, text] of Object.entries(spec.files)) writeFileSync(join(dir, name), text);
  const child: ChildProcess = spawn(spec.binary, spec.args(dir), { stdio: ['ignore', 'pipe', 'pipe'] });
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
    const timer = setTimeout(() => resolve(null), spec.startMs);
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
  if (port !== null) {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < spec.readyPolls; i++) {
      try {
        if ((await fetch(`${url}/-/ready`)).ok) return { daemon: { url, stop }, log };
      } catch {
        // Not accepting yet.
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await stop();
  return { daemon: null, log };
}
