/**
 * The scripted incident timeline: six phases, each switching faults on at the providers
 * and off again when it ends, looping (or once, then healthy), and the events of a model
 * retirement during the first loop. Each phase and event says what it does and where to
 * look; `--fast` shortens the phases so one loop takes under 3 minutes.
 */
import { FT_TRIAGE, RETIRING, SERVICES, SUCCESSOR } from './catalog.ts';
import type { Providers } from './providers.ts';

/** Phase ids, also printed, so a script can follow the demo's output. */
export type PhaseId = 'healthy' | 'flapping' | 'outage' | 'quota' | 'slow' | 'fallback_failing';

/** One phase of the timeline. */
export interface Phase {
  id: PhaseId;
  /** What happens, in one line. */
  title: string;
  /** Where to look on the board, in one line. */
  lookAt: string;
  durationS: { normal: number; fast: number };
  /** Switches the phase's faults on; returns what switches them off. */
  start(providers: Providers): () => void;
}

const HAIKU = 'claude-3-5-haiku-20241022';
const SONNET = 'claude-sonnet-4-20250514';

/** Fails `model` in bursts: `failMs` failing, `okMs` healthy, over and over. */
function flap(providers: Providers, model: string, failMs: number, okMs: number): () => void {
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    failing = !failing;
    if (failing) providers.outage(model);
    else providers.heal(model);
    timer = setTimeout(tick, failing ? failMs : okMs);
  };
  tick();
  return () => {
    clearTimeout(timer);
    providers.heal(model);
  };
}

/**
 * The phases, in order. Flapping comes early: its alert looks back five minutes (one with
 * `--fast`), so it can resolve before the loop starts over.
 *
 * The fast lengths leave each phase about twice what its checks take in
 * `test/demo/demo.test.ts` (it logs "after N s of a M s phase"): the client side reacts
 * within a telemetry interval (5 s) and the probe side within seconds through probe on
 * suspicion. Flapping is the exception: it needs its five bursts.
 */
export const PHASES: Phase[] = [
  {
    id: 'healthy',
    title: 'all healthy',
    lookAt: 'the board: every model healthy, probes ok from eu-west and us-east; Cost shows cost per successful task per operation',
    durationS: { normal: 120, fast: 20 },
    start: () => () => undefined,
  },
  {
    id: 'flapping',
    title: `anthropic ${HAIKU} fails in 4-second bursts, and its breakers are tuned with a 2 s cooldown`,
    lookAt: `${HAIKU}: breakers open and close over and over (key detail: transitions); the flapping alert fires, then resolves one look-back (5 minutes, 1 with --fast) after the flapping stops`,
    // Fast: five 4-second bursts (the fifth ends at 44 s), so the flapping alert (4 trips of one
    // instance inside its look-back) does not hang on every single burst tripping.
    durationS: { normal: 150, fast: 45 },
    start: (p) => flap(p, HAIKU, 4_000, 6_000),
  },
  {
    id: 'outage',
    title: 'openai gpt-4o answers 503 to everyone, the probers included',
    lookAt: 'gpt-4o turns provider_outage (clients and probes agree); breakers open on the ticket-drafts instances and draft-reply is served by claude-sonnet-4 (failover level 2); the open_share alert fires, and probe_failing after three failed probes in a row',
    durationS: { normal: 180, fast: 30 },
    start: (p) => {
      p.outage('gpt-4o');
      return () => p.heal('gpt-4o');
    },
  },
  {
    id: 'quota',
    title: "support-triage's OpenAI account runs out of quota; ticket-drafts and the probers are still served",
    lookAt: 'gpt-4o-mini (and the triage model) turn self_inflicted with hint quota: 429 insufficient_quota from one service while probes are fine; no breaker opens, it is our account, not the provider; the clients_degraded alert pages anyway, naming support-triage only',
    durationS: { normal: 150, fast: 20 },
    start: (p) => {
      p.exhaustQuota('openai', 'support-triage');
      return () => p.restoreQuota('openai', 'support-triage');
    },
  },
  {
    id: 'slow',
    title: `anthropic ${SONNET} answers 200, but after ~1.7 s: past its 1.5 s latency ceiling`,
    lookAt: `${SONNET}: slow share climbs with no errors, breakers open with reason slow_calls and answer-customer fails over to gpt-4o; the probes see it slow too`,
    durationS: { normal: 150, fast: 30 },
    start: (p) => {
      // Slow, yet under the probers' 2 s interval, so no probe run is skipped.
      p.slow(SONNET, 1_700);
      return () => p.heal(SONNET);
    },
  },
  {
    id: 'fallback_failing',
    title: `the fine-tuned triage model and its fallback gpt-4.1-mini, at the same provider, fail together`,
    lookAt: `${FT_TRIAGE}: provider_outage and the critical fallback_failing alert; its key page had warned that the fallback shares the primary's provider`,
    durationS: { normal: 180, fast: 25 },
    start: (p) => {
      p.outage(FT_TRIAGE);
      p.outage('gpt-4.1-mini');
      return () => {
        p.heal(FT_TRIAGE);
        p.heal('gpt-4.1-mini');
      };
    },
  },
];

/** Event ids, printed as phase ids are. */
export type EventId = 'retirement' | 'migration';

/**
 * A one-off event of the first loop, at a fixed time after the demo starts rather than a
 * phase: a retired model stays retired, so later loops do not repeat it. The retirement's
 * instant is on the collector's calendar and the fake provider's `retirements` from the start
 * (`demo.ts`); its event only says so when it comes.
 */
export interface TimelineEvent {
  id: EventId;
  title: string;
  lookAt: string;
  /** Seconds after the demo starts. */
  atS: { normal: number; fast: number };
  /** What it changes in the fleet (the providers' side follows the calendar by itself). */
  start(fleet: { migrate(): void }): void;
}

/** The operation that migrates to the successor. */
const PINNED_OP = SERVICES.flatMap((s) => s.operations).find((op) => op.pinned?.migration.model === SUCCESSOR);

/**
 * The retirement, then the migration: the snapshot is on the calendar from the start (the
 * model_retiring warning, the Lifecycle view, the shadow comparison), fails with 404 from its
 * instant on, and the migration to the successor ships a while later. Placed so the
 * migration's page (one to two minutes after the snapshot's last call: calls are counted in
 * whole minutes) has resolved by the time the last phase's alerts do (a `--once` run's last
 * wait). With `--fast` the retirement falls in the flapping phase and the migration at the
 * outage's end; the test checks both right after the quota phase, while the page is critical.
 */
export const EVENTS: TimelineEvent[] = [
  {
    id: 'retirement',
    title: `openai ${RETIRING} reaches its shutdown instant on the retirement calendar: every polish-reply call now fails with 404 model_not_found (no fallback: its users wait for the migration)`,
    lookAt: `${RETIRING}: self_inflicted with hint model_retired (not client_errors), "move to ${SUCCESSOR}"; the model_retiring alert turns critical in place ("retired and is still called"), clients_degraded pages; Lifecycle: status retired`,
    atS: { normal: 540, fast: 55 },
    start: () => undefined,
  },
  {
    id: 'migration',
    title: `ticket-drafts ships the migration: polish-reply calls ${SUCCESSOR}, with max_tokens raised to ${PINNED_OP?.pinned?.migration.maxTokens} as the shadow comparison warned`,
    lookAt: `Lifecycle: the ${RETIRING} → ${SUCCESSOR} comparison (truncation share, latency, cost per call, projected monthly bill); clients_degraded resolves within a minute; model_retiring stays critical until nobody has called ${RETIRING} since its date for 7 days (alerts.rules.model_retiring.traffic_days)`,
    atS: { normal: 690, fast: 95 },
    start: (fleet) => fleet.migrate(),
  },
];

/** Options of `runTimeline`. */
export interface TimelineOptions {
  fast: boolean;
  /** Run the phases once, then stay healthy. */
  once: boolean;
  /** When the demo started (ms since the epoch): events are timed from it. */
  startedAt: number;
  /** Called when a phase starts (`loop` counts from 1). */
  onPhase(phase: Phase, index: number, loop: number): void;
  /** Called when an event happens. */
  onEvent(event: TimelineEvent): void;
  /** Called when a `once` timeline has run its last phase. */
  onDone(): void;
}

/** A running timeline. */
export interface Timeline {
  /** Ends the current phase (its faults switched off) and stops. */
  stop(): void;
}

/** Runs the phases against `providers`, and the events once against `fleet`. */
export function runTimeline(providers: Providers, fleet: { migrate(): void }, options: TimelineOptions): Timeline {
  let timer: NodeJS.Timeout | undefined;
  let undo: (() => void) | undefined;
  let stopped = false;
  const eventTimers = EVENTS.map((event) =>
    setTimeout(() => {
      if (stopped) return;
      options.onEvent(event);
      event.start(fleet);
    }, Math.max(0, options.startedAt + eventAtMs(event, options.fast) - Date.now())),
  );
  const run = (index: number, loop: number) => {
    if (stopped) return;
    if (index === PHASES.length) {
      if (options.once) return options.onDone();
      return run(0, loop + 1);
    }
    const phase = PHASES[index]!;
    options.onPhase(phase, index, loop);
    undo = phase.start(providers);
    timer = setTimeout(() => {
      undo?.();
      undo = undefined;
      run(index + 1, loop);
    }, (options.fast ? phase.durationS.fast : phase.durationS.normal) * 1000);
  };
  run(0, 1);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const t of eventTimers) clearTimeout(t);
      undo?.();
      undo = undefined;
    },
  };
}

/** Length of one loop, s. */
export function loopSeconds(fast: boolean): number {
  return PHASES.reduce((s, p) => s + (fast ? p.durationS.fast : p.durationS.normal), 0);
}

/** When `event` happens, ms after the demo starts. */
export function eventAtMs(event: TimelineEvent, fast: boolean): number {
  return (fast ? event.atS.fast : event.atS.normal) * 1000;
}

/** The event with this id. */
export function eventOf(id: EventId): TimelineEvent {
  return EVENTS.find((e) => e.id === id)!;
}
