/**
 * The two probers of the demo: the real `breakerbox probe` command as child processes,
 * one per location, probing every model of both providers through the providers' front
 * doors with the probers' own account. Keys go to the children by environment variable
 * name only, as the prober requires.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ACCOUNTS, ENDPOINT, MODELS } from './catalog.ts';
import { DEMO_ERROR_CODES, DemoError } from './errors.ts';
import type { Providers } from './providers.ts';

/** The locations the demo probes from. */
export const LOCATIONS = ['eu-west', 'us-east'] as const;

const KEY_ENV = { openai: 'DEMO_OPENAI_API_KEY', anthropic: 'DEMO_ANTHROPIC_API_KEY' } as const;

/** Options of `startProbers`. */
export interface ProberOptions {
  dir: string;
  /** The repository root (where `bin/breakerbox.js` lives). */
  root: string;
  providers: Providers;
  collectorUrl: string;
  ingestToken: string;
  /** The operator's environment, passed on (PATH, locale…). */
  env: Record<string, string | undefined>;
  /** A line a prober wrote (errors only), or a note that it exited. */
  onLine: (location: string, line: string) => void;
}

/** The running probers. */
export interface Probers {
  pids: Record<string, number>;
  /** SIGTERM to each, then SIGKILL to any still running after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** The probers' targets file: one target per probed model, every 2 s, ceilings as the fleet's. */
export function probeConfig(providers: Providers): Record<string, unknown> {
  return {
    max_concurrent: 16,
    collector: { token_env: 'BREAKERBOX_TOKEN', flush_interval: '1s' },
    defaults: { interval: '2s', jitter: '1s', timeouts: { connect_ms: 2000, first_byte_ms: 10000, total_ms: 12000 } },
    targets: Object.values(MODELS).filter((m) => m.probed !== false).map((m) => ({
      name: m.model.replaceAll(':', '-'),
      key: { provider: m.provider, endpoint: ENDPOINT[m.provider], model: m.model },
      kind: m.provider === 'openai' ? 'openai-chat' : 'anthropic-messages',
      base_url: providers.baseUrl(m.provider),
      api_key_env: KEY_ENV[m.provider],
      // Room for the whole answer: a cut answer would be reported as truncated, not ok.
      request: { max_tokens: Math.max(400, m.longAnswers?.tokens ?? 0) },
      latency_ceiling_ms: m.ceilingMs,
      price: { input_per_mtok: m.price.inputPerMTok, output_per_mtok: m.price.outputPerMTok },
    })),
  };
}

/** Writes the targets file and starts one prober per location. */
export function startProbers(options: ProberOptions): Probers {
  const file = join(options.dir, 'probes.yaml');
  writeFileSync(file, stringify(probeConfig(options.providers)));
  const env = {
    ...options.env,
    BREAKERBOX_URL: options.collectorUrl,
    BREAKERBOX_TOKEN: options.ingestToken,
    [KEY_ENV.openai]: ACCOUNTS.prober,
    [KEY_ENV.anthropic]: ACCOUNTS.prober,
  };
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  for (const location of LOCATIONS) {
    const args = [join(options.root, 'bin', 'breakerbox.js'), 'probe', '--config', file, '--location', location, '--log-format', 'text', '--log-level', 'error'];
    const child = spawn(process.execPath, args, { cwd: options.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid === undefined) throw new DemoError(DEMO_ERROR_CODES.PROBER_START, `prober ${location} could not be started`);
    const forward = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) options.onLine(location, line);
    };
    child.stdout!.on('data', forward);
    child.stderr!.on('data', forward);
    child.on('exit', (code, signal) => {
      if (!stopping) options.onLine(location, `exited unexpectedly (${signal ?? `code ${code}`})`);
    });
    children.set(location, child);
  }
  // Whatever ends this process, the probers must not outlive it.
  const killAll = () => {
    for (const c of children.values()) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  process.once('exit', killAll);

  return {
    pids: Object.fromEntries([...children].map(([l, c]) => [l, c.pid!])),
    async stop(graceMs = 5_000) {
      stopping = true;
      const exits = [...children.values()].map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            const timer = setTimeout(() => c.kill('SIGKILL'), graceMs);
            c.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            c.kill('SIGTERM');
          }),
      );
      await Promise.all(exits);
      process.off('exit', killAll);
    },
  };
}
