/**
 * The whole demo as one function: fake providers, the collector with its dashboard on a
 * fresh database, the fleet, two probers, and the incident timeline — and a `stop` that
 * takes all of it down again and removes the temporary folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODELS, RETIRING, SERVICES, SUCCESSOR, shadowShare } from './catalog.ts';
import { startCollector } from './collector.ts';
import { DEMO_ERROR_CODES, DemoError } from './errors.ts';
import { startFleet, type Fleet, type FleetTotals } from './fleet.ts';
import { LOCATIONS, startProbers } from './probers.ts';
import { startProviders } from './providers.ts';
import { PHASES, eventAtMs, eventOf, loopSeconds, runTimeline } from './timeline.ts';

/** Options of `startDemo`, resolved by the caller (`main.ts`). */
export interface DemoOptions {
  fast: boolean;
  once: boolean;
  port: number;
  host: string;
  /** Repository root. */
  root: string;
  /** The operator's environment (passed to the probers and the collector's own variables). */
  env: Record<string, string | undefined>;
  /** Writes one line for the operator. */
  print(line: string): void;
}

/** A running demo. */
export interface RunningDemo {
  url: string;
  readToken: string;
  /** Temporary folder holding the database; removed by `stop`. */
  dir: string;
  proberPids: Record<string, number>;
  /** Stops everything, in order; safe to call twice. */
  stop(): Promise<void>;
}

/** Builds the dashboard once when `dashboard/dist` is missing (a clone where `npm install` did not run it). */
function ensureDashboard(root: string, print: (line: string) => void): void {
  if (existsSync(join(root, 'dashboard', 'dist', 'index.html'))) return;
  print('building the dashboard once (npm run build)…');
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const run = spawnSync(process.execPath, [vite, 'build', '--config', 'dashboard/vite.config.ts', '--logLevel', 'warn'], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new DemoError(DEMO_ERROR_CODES.DASHBOARD_BUILD, `the dashboard build failed:\n${run.stdout}${run.stderr}`);
}

/** `port` when it is free on `host`, else 0 (any free port). */
async function freePort(port: number, host: string): Promise<number> {
  if (port === 0) return 0;
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(0));
    probe.listen(port, host, () => probe.close(() => resolve(port)));
  });
}

/** Telemetry interval of the fleet, ms. */
const REPORT_INTERVAL_MS = 5_000;

const usd = (x: number) => `$${x.toFixed(2)}`;
const pct = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : '0%');
const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};

function fleetLine(now: FleetTotals, before: FleetTotals): string {
  const tasks = now.tasks - before.tasks;
  return `fleet since the last phase: ${tasks.toLocaleString('en-US')} tasks, ${pct(now.failedOver - before.failedOver, tasks)} served by a fallback, ${pct(now.failed - before.failed, tasks)} failed, ${usd(now.costUsd - before.costUsd)} spent`;
}

/**
 * Says so when an instance's telemetry stops leaving (events pile up, nothing acknowledged
 * for 30 s): the board would silently go stale otherwise.
 */
function watchTelemetry(fleet: Fleet, print: (line: string) => void): NodeJS.Timeout {
  const last = new Map<string, { sent: number; since: number; told: boolean }>();
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [instance, stats] of Object.entries(fleet.telemetry())) {
      if (!stats) continue;
      const seen = last.get(instance);
      if (!seen || stats.sent !== seen.sent || stats.buffered === 0) {
        last.set(instance, { sent: stats.sent, since: now, told: false });
      } else if (now - seen.since > 30_000 && !seen.told) {
        seen.told = true;
        print(`telemetry of ${instance} is stuck: ${stats.buffered} events waiting, none acknowledged for 30 s${stats.lastError ? ` (last error: ${stats.lastError})` : ''}`);
      }
    }
  }, 5_000);
  timer.unref();
  return timer;
}

/** Starts the demo; on a failure part-way, what was started is stopped before rethrowing. */
export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const { print } = options;
  const started = Date.now();
  const stamp = (line: string) => print(`[${clock(Date.now() - started)}] ${line}`);
  const closers: Array<[string, () => Promise<void> | void]> = [];
  const dir = mkdtempSync(join(tmpdir(), 'breakerbox-demo-'));
  closers.push(['temporary folder', () => rmSync(dir, { recursive: true, force: true })]);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const [what, close] of closers.reverse()) {
        try {
          await close();
        } catch (err) {
          print(`demo: stopping the ${what} failed: ${(err as Error).message}`);
        }
      }
    })());

  // The retirement's instant, on the collector's calendar and at the fake provider alike (and
  // when the timeline announces it), so the 404s begin exactly where the calendar says the model is gone.
  const retireAt = started + eventAtMs(eventOf('retirement'), options.fast);
  const shutdown = new Date(retireAt).toISOString();

  try {
    ensureDashboard(options.root, print);
    const providers = await startProviders({ [RETIRING]: retireAt });
    closers.push(['fake providers', () => providers.close()]);
    const port = await freePort(options.port, options.host);
    if (port !== options.port) print(`demo: port ${options.port} is taken, using a free one`);
    const collector = await startCollector({
      dir,
      port,
      host: options.host,
      alertIntervalS: options.fast ? 2 : 5,
      flappingWindowS: options.fast ? 60 : 300,
      env: options.env,
      retirements: [{ provider: MODELS[RETIRING]!.provider, model: RETIRING, shutdown, successor: SUCCESSOR }],
    });
    closers.push(['collector', () => collector.close()]);
    // Warnings raised while the fleet starts are shown under the header, not above it.
    let warnings: string[] | undefined = [];
    const fleet = startFleet({
      providers,
      collectorUrl: collector.url,
      ingestToken: collector.ingestToken,
      reportIntervalMs: REPORT_INTERVAL_MS,
      fast: options.fast,
      onWarning: (message) => (warnings ? warnings.push(message) : stamp(`SDK configuration warning: ${message}`)),
      onTelemetryError: (instance, message) => stamp(`telemetry of ${instance} failed: ${message}`),
    });
    closers.push(['fleet', () => fleet.stop()]);
    const watchdog = watchTelemetry(fleet, (line) => stamp(line));
    closers.push(['telemetry watchdog', () => clearInterval(watchdog)]);
    const probers = startProbers({
      dir,
      root: options.root,
      providers,
      collectorUrl: collector.url,
      ingestToken: collector.ingestToken,
      env: options.env,
      onLine: (location, line) => stamp(`prober ${location}: ${line}`),
    });
    closers.push(['probers', () => probers.stop()]);

    const services = SERVICES.map((s) => `${s.name} ×${s.instances}`).join(', ');
    print('');
    print(`breakerbox demo — ${options.fast ? 'fast' : 'normal'} timeline, ${PHASES.length} phases, ${Math.round(loopSeconds(options.fast) / 6) / 10} min per loop${options.once ? ', run once' : ', looping'}`);
    print(`  dashboard:   ${collector.url}/`);
    print(`  read token:  ${collector.readToken}`);
    print('               (paste it into the sign-in form; it can read, not write)');
    print(`  fleet:       ${services} — each instance its own SDK, pushing telemetry every ${REPORT_INTERVAL_MS / 1000} s`);
    print(`  probers:     ${LOCATIONS.map((l) => `${l} (pid ${probers.pids[l]})`).join(', ')}, every model every 2 s but the retiring snapshot`);
    const mirrors = SERVICES.flatMap((s) => s.operations.filter((op) => op.pinned).map((op) => `${s.name}/${op.name} mirrors ${Math.round(shadowShare(op, options.fast) * 100)} % of its calls to ${op.pinned!.shadow.model}`));
    print(`  retirement:  openai ${RETIRING} shuts down at ${shutdown} ([${clock(retireAt - started)}]), successor ${SUCCESSOR}, on the collector's calendar; ${mirrors.join('; ')}`);
    print(`  data:        ${dir} (removed on exit)`);
    print('  Ctrl-C stops everything.');
    for (const w of warnings) print(`  SDK configuration warning: ${w}`);
    warnings = undefined;
    print('');

    let before = fleet.totals();
    const timeline = runTimeline(providers, fleet, {
      fast: options.fast,
      once: options.once,
      startedAt: started,
      onPhase(phase, index, loop) {
        if (index > 0 || loop > 1) stamp(fleetLine(fleet.totals(), before));
        before = fleet.totals();
        const seconds = options.fast ? phase.durationS.fast : phase.durationS.normal;
        stamp(`phase ${index + 1}/${PHASES.length} ${phase.id} (loop ${loop}, ${seconds} s): ${phase.title}`);
        stamp(`  look at: ${phase.lookAt}`);
      },
      onEvent(event) {
        stamp(`event ${event.id} (loop 1): ${event.title}`);
        stamp(`  look at: ${event.lookAt}`);
      },
      onDone() {
        stamp(fleetLine(fleet.totals(), before));
        stamp('timeline done: every model healthy again — watch the open alerts resolve; Ctrl-C to stop');
      },
    });
    closers.push(['timeline', () => timeline.stop()]);

    return { url: collector.url, readToken: collector.readToken, dir, proberPids: probers.pids, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
