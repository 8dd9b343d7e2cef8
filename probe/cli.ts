/**
 * `breakerbox probe`: the prober's command line, and the one module of the prober
 * that reads the environment (API keys by the names in `api_key_env`, the ingest
 * token, `BREAKERBOX_URL`). Everything below receives values explicitly.
 *
 * Exit codes: 0 done (SIGTERM handled, `--check` passed, `--once` every probe ok and
 * delivered); 1 `--once` saw a target not probed, a failed probe (an error, or a wrong
 * answer to its canary) or an undelivered event,
 * or a runtime failure; 2 bad flags or config.
 */
import { parseArgs } from 'node:util';
import type { ProbeEvent } from '@breakerbox/protocol';
import type { ProberConfig } from './config-types.ts';
import { loadConfig } from './config-load.ts';
import { parseDuration } from './duration.ts';
import { isProbeError, PROBE_ERROR_CODES, ProbeError } from './errors.ts';
import { createLogger, type LogLevel } from './logger.ts';
import { buildPlan, formatPlan } from './plan.ts';
import { Prober, type FireResult } from './prober.ts';
import { PushClient } from './push-client.ts';
import { ProbeRequestClient } from './request-client.ts';
import { createRedactor } from './redact.ts';
import { adapterFor } from './adapters/index.ts';
import { awsSecrets, loadAwsCredentials } from './aws-credentials.ts';

/** What the CLI touches of the outside world; tests pass their own. */
export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Subscribes to SIGTERM/SIGINT; returns an unsubscribe function. */
  onSignal: (handler: (signal: string) => void) => () => void;
}

const USAGE = `usage: breakerbox probe --config <file> [--location <name>] [options]

  -c, --config <file>        probe targets (YAML or JSON); see probe/README.md
  -l, --location <name>      where this prober runs (overrides "location" in the file)
      --check                validate the file, print the plan and estimated daily cost, send nothing
      --collector <url>      collector base URL (default: $BREAKERBOX_URL, then collector.url)
      --once                 probe every target once, push, and exit: 0 when every probe was ok (or
                             slow) and delivered, 1 otherwise — an error or a wrong answer to a canary
                             (the last line says which)
      --print                write probe events to stdout as JSON lines instead of pushing
      --log-format <f>       json (default) or text
      --log-level <l>        debug, info (default), warn or error
      --shutdown-timeout <d> how long SIGTERM waits for the final push (default 10s)
  -h, --help                 this text

The ingest token is read from the environment variable named by collector.token_env
(default BREAKERBOX_TOKEN); API keys from the variables named by each target's api_key_env.`;

const processIo: CliIo = {
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  onSignal: (handler) => {
    const h = (sig: NodeJS.Signals): void => handler(sig);
    process.on('SIGTERM', h);
    process.on('SIGINT', h);
    return () => {
      process.off('SIGTERM', h);
      process.off('SIGINT', h);
    };
  },
};

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv[0] === 'probe' ? argv.slice(1) : argv,
    strict: true,
    allowPositionals: false,
    options: {
      config: { type: 'string', short: 'c' },
      location: { type: 'string', short: 'l' },
      check: { type: 'boolean' },
      collector: { type: 'string' },
      once: { type: 'boolean' },
      print: { type: 'boolean' },
      'log-format': { type: 'string' },
      'log-level': { type: 'string' },
      'shutdown-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
}

function usageError(message: string): never {
  throw new ProbeError(PROBE_ERROR_CODES.USAGE, message, [message]);
}

/** Entry point: `argv` excludes node and the script (e.g. `['probe', '--config', 'p.yaml']`). */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (err) {
    if (isProbeError(err)) {
      const redact = createRedactor([]);
      io.stderr(`breakerbox probe: ${redact(err.message)}`);
      for (const p of err.problems) if (p !== err.message) io.stderr(`  ${redact(p)}`);
      return err.code === PROBE_ERROR_CODES.CONFIG || err.code === PROBE_ERROR_CODES.USAGE || err.code === PROBE_ERROR_CODES.ENV ? 2 : 1;
    }
    io.stderr(`breakerbox probe: unexpected failure: ${createRedactor([])(err instanceof Error ? err.message : String(err))}`);
    return 1;
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(argv);
  } catch (err) {
    usageError(err instanceof Error ? err.message : String(err));
  }
  if (flags.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (!flags.config) usageError('--config <file> is required (see --help)');
  const logFormat = flags['log-format'] ?? 'json';
  if (logFormat !== 'json' && logFormat !== 'text') usageError('--log-format must be json or text');
  const logLevel = flags['log-level'] ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) usageError('--log-level must be debug, info, warn or error');
  const shutdownMs = parseDuration(flags['shutdown-timeout'] ?? '10s');
  if (shutdownMs === undefined) usageError('--shutdown-timeout must be a duration such as 10s');

  const config = await loadConfig(flags.config, { location: flags.location });
  const missingEnv = config.targets
    .filter((t) => t.apiKeyEnv !== undefined && !io.env[t.apiKeyEnv])
    .map((t) => `target "${t.name}" (targets[${t.index}]): api_key_env: environment variable ${t.apiKeyEnv} is not set`);
  // SigV4-signed kinds without an API key sign with the standard AWS environment or profile.
  const signing = config.targets.filter((t) => t.apiKeyEnv === undefined && adapterFor(t.kind)?.sign);
  const aws = signing.length > 0 ? loadAwsCredentials(io.env) : undefined;
  if (signing.length > 0 && !aws) {
    for (const t of signing) {
      missingEnv.push(`target "${t.name}" (targets[${t.index}]): no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or a profile in ~/.aws/credentials (AWS_PROFILE), or give api_key_env for a Bedrock API key`);
    }
  }

  if (flags.check) {
    io.stdout(formatPlan(config, buildPlan(config), missingEnv));
    return 0;
  }
  if (missingEnv.length > 0) throw new ProbeError(PROBE_ERROR_CODES.ENV, `${missingEnv.length} API key(s) missing from the environment`, missingEnv);

  const apiKeys = new Map<string, string>();
  for (const t of config.targets) if (t.apiKeyEnv) apiKeys.set(t.apiKeyEnv, io.env[t.apiKeyEnv] as string);
  const token = io.env[config.collector.tokenEnv];
  const redact = createRedactor([...apiKeys.values(), token, ...awsSecrets(aws)]);
  const log = createLogger({ write: io.stderr, redact, format: logFormat, level: logLevel as LogLevel });

  let push: PushClient | undefined;
  let collectorUrl: string | undefined;
  let sink: (event: ProbeEvent) => void;
  if (flags.print) {
    sink = (event) => io.stdout(JSON.stringify(event));
  } else {
    const url = flags.collector ?? io.env.BREAKERBOX_URL ?? config.collector.url;
    if (!url) usageError('no collector: give --collector, set BREAKERBOX_URL or collector.url (or use --print)');
    if (!/^https?:\/\/[^\s@/]+/.test(url)) usageError('the collector URL must be an http(s) URL without credentials');
    if (!token) usageError(`no ingest token: set the environment variable ${config.collector.tokenEnv}`);
    collectorUrl = url;
    const p = new PushClient({ url, token, location: config.location, logger: log, ...pushOptions(config) });
    push = p;
    sink = (event) => p.push(event);
    p.start();
  }
  const prober = new Prober({ config, apiKeys, aws, sink, logger: log });

  if (flags.once) {
    const summary = createLogger({ write: io.stderr, redact, format: logFormat, level: 'debug' });
    return runOnce(prober, config, push, shutdownMs, log, summary);
  }

  const stopped = new Promise<string>((resolve) => {
    const off = io.onSignal((signal) => {
      off();
      resolve(signal);
    });
  });
  prober.start();
  // Probe on suspicion: the collector's requests run beside the schedule, never in its way.
  const requests = collectorUrl && token && config.onDemand.enabled
    ? new ProbeRequestClient({
        url: collectorUrl, token, location: config.location, logger: log,
        onRequests: (list) => {
          for (const r of list) {
            prober.fireOnDemand(r.key).catch((err: unknown) => log.error('on-demand probe failed unexpectedly', { error: err instanceof Error ? err.message : String(err) }));
          }
        },
      })
    : undefined;
  requests?.start();
  const signal = await stopped;
  log.info('stopping: finishing in-flight probes, then flushing', { signal, in_flight: prober.active });
  await requests?.stop();
  await prober.stop();
  const lost = push ? await push.close(shutdownMs) : 0;
  log.info('stopped', { probes: prober.stats.probes, skipped_overlap: prober.stats.skippedOverlap, lost_events: lost });
  return 0;
}

function pushOptions(config: ProberConfig) {
  const c = config.collector;
  return { batchSize: c.batchSize, flushIntervalMs: c.flushIntervalMs, bufferCap: c.bufferCap, gzip: c.gzip };
}

async function runOnce(
  prober: Prober,
  config: ProberConfig,
  push: PushClient | undefined,
  shutdownMs: number,
  log: ReturnType<typeof createLogger>,
  summary: ReturnType<typeof createLogger>,
): Promise<number> {
  const results = await Promise.all(config.targets.map((t) => prober.fire(t.name)));
  const lost = push ? await push.close(shutdownMs) : 0;
  const outcome = onceOutcome(config, results, push ? push.stats.accepted : undefined);
  log.debug('every target fired once', { lost_events: lost });
  // The last line says what the exit code means, whatever --log-level hides.
  (outcome.exit === 0 ? summary.info : summary.error)(outcome.message, outcome.fields);
  return outcome.exit;
}

/**
 * The verdict of `--once`: 0 when every target was probed ok and every event reached the
 * collector (or stdout with --print); 1 when a target was not probed, a probe failed (an
 * error, or a `wrong_answer` to its canary: a smoke check must not pass on a wrong answer), or an
 * event was not delivered. `accepted` is undefined with --print (every event was written).
 */
export function onceOutcome(config: ProberConfig, results: FireResult[], accepted: number | undefined) {
  const names = config.targets.map((t) => t.name);
  const skipped = results.flatMap((r, i) => (r.kind === 'skipped' ? [`${names[i]}: ${r.reason}`] : []));
  const probed = results.flatMap((r) => (r.kind === 'probed' ? [r] : []));
  const failed = results.flatMap((r, i) => {
    if (r.kind !== 'probed') return [];
    if (r.event.outcome === 'error') return [`${names[i]}: ${r.event.error_class ?? 'error'}`];
    return r.event.outcome === 'wrong_answer' ? [`${names[i]}: wrong_answer`] : [];
  });
  const events = probed.reduce((n, r) => n + 1 + (r.warmup ? 1 : 0), 0);
  const delivered = accepted ?? events;
  const problems = [
    ...(skipped.length > 0 ? [`${skipped.length} of ${names.length} targets not probed (${skipped.join(', ')})`] : []),
    ...(failed.length > 0 ? [`${failed.length} of ${names.length} probes failed (${failed.join(', ')})`] : []),
    ...(delivered < events ? [`${events - delivered} of ${events} events not delivered`] : []),
  ];
  const exit = problems.length === 0 ? 0 : 1;
  const message = exit === 0
    ? `--once: all ${names.length} targets probed ok, ${delivered} of ${events} events delivered: exit 0`
    : `--once: ${problems.join('; ')}: exit 1`;
  return { exit, message, fields: { targets: names.length, probed: probed.length, failed: failed.length, events, delivered, exit } };
}
