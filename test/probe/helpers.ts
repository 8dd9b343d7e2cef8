/**
 * Helpers of the prober's tests: configs built through the real validator, a logger
 * that keeps its lines, a hand-fired scheduler, and a controllable clock.
 */
import { validateConfig } from '../../probe/config-validate.ts';
import type { ProberConfig, TargetConfig } from '../../probe/config-types.ts';
import { createLogger, type Logger } from '../../probe/logger.ts';
import { createRedactor } from '../../probe/redact.ts';
import type { Scheduler } from '../../probe/scheduler.ts';

/** The API key the fake provider accepts in these tests (shaped like a real one). */
export const API_KEY = 'sk-probe-test-4f9a8b7c6d5e4f3a2b1c';

/** Validates a raw config object and fails loudly on any problem. */
export function configOf(raw: Record<string, unknown>, location = 'eu-west'): ProberConfig {
  const { config, problems } = validateConfig(raw, { location });
  if (!config) throw new Error(`test config invalid:\n${problems.join('\n')}`);
  return config;
}

/** A raw target for the fake provider; `over` replaces fields. */
export function rawTarget(baseUrl: string, model: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: model,
    key: { provider: 'openai', endpoint: 'chat', model },
    kind: 'openai-chat',
    base_url: baseUrl,
    api_key_env: 'PROBE_TEST_KEY',
    latency_ceiling_ms: 2_000,
    timeouts: { connect_ms: 1_000, first_byte_ms: 400, total_ms: 1_500 },
    ...over,
  };
}

/** The one target of a single-target config. */
export function onlyTarget(config: ProberConfig): TargetConfig {
  const t = config.targets[0];
  if (!t) throw new Error('no target');
  return t;
}

/** A logger whose lines (redacted, as written) are kept in `lines`. */
export function captureLogger(secrets: string[] = [API_KEY]): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = createLogger({ write: (l) => lines.push(l), redact: createRedactor(secrets), level: 'debug' });
  return { log, lines };
}

/** A scheduler that never fires by itself: tests call `prober.fire`. */
export class ManualScheduler implements Scheduler {
  readonly added: string[] = [];
  stopped = false;
  add(target: TargetConfig): void {
    this.added.push(target.name);
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
}

/** A clock the test moves by hand. */
export function manualClock(start = Date.UTC(2025, 0, 15, 12, 0, 0)): { now: () => number; advance(ms: number): void; set(t: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(v) {
      t = v;
    },
  };
}
