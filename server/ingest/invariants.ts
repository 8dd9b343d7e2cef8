import type { Histogram, ProbeEvent, ShadowEvent, ShadowSide, TasksEvent, TelemetryEvent, WindowEvent } from '@breakerbox/protocol';

/** A refusal found by the semantic check: where, and why. */
export interface Violation {
  /** JSON pointer relative to the event (`/errors/foo`), '' for the event itself. */
  path: string;
  message: string;
}

/**
 * Names that JavaScript treats specially as object keys. Locations become keys of the
 * read API's per-location maps, where `__proto__` would silently vanish.
 */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__']);

const histogramTotal = (h: Histogram): number => h.counts.reduce((n, c) => n + c, 0);

function windowInvariants(e: WindowEvent): Violation | null {
  let failed = 0;
  for (const n of Object.values(e.errors)) failed += n ?? 0;
  const counted = e.ok + e.slow + failed;
  if (counted > e.calls) {
    return { path: '/calls', message: `ok + slow + errors (${e.ok} + ${e.slow} + ${failed} = ${counted}) must not exceed calls (${e.calls})` };
  }
  if (e.retries > e.calls) return { path: '/retries', message: `retries (${e.retries}) must not exceed calls (${e.calls})` };
  if (e.cold_excluded > e.calls) return { path: '/cold_excluded', message: `cold_excluded (${e.cold_excluded}) must not exceed calls (${e.calls})` };
  const probes = e.half_open.ok + e.half_open.failed;
  if (probes > e.calls) return { path: '/half_open', message: `half_open ok + failed (${probes}) must not exceed calls (${e.calls})` };
  const latency = histogramTotal(e.latency_ms);
  if (latency > e.calls) return { path: '/latency_ms/counts', message: `latency counts (${latency}) must not exceed calls (${e.calls})` };
  if (e.ttft_ms) {
    const ttft = histogramTotal(e.ttft_ms);
    if (ttft > e.calls) return { path: '/ttft_ms/counts', message: `ttft counts (${ttft}) must not exceed calls (${e.calls})` };
  }
  const signalled = e.deprecation_signal?.responses ?? 0;
  if (signalled > e.calls) return { path: '/deprecation_signal/responses', message: `deprecation_signal responses (${signalled}) must not exceed calls (${e.calls})` };
  return null;
}

function tasksInvariants(e: TasksEvent): Violation | null {
  let served = 0;
  for (const n of Object.values(e.levels)) served += n ?? 0;
  if (served > e.completed) return { path: '/levels', message: `tasks served per level (${served}) must not exceed completed (${e.completed})` };
  const finished = e.completed + e.failed;
  if (e.degraded > finished) return { path: '/degraded', message: `degraded (${e.degraded}) must not exceed completed + failed (${finished})` };
  if (e.fallback.failed > e.fallback.invoked) {
    return { path: '/fallback/failed', message: `fallback failed (${e.fallback.failed}) must not exceed fallback invoked (${e.fallback.invoked})` };
  }
  return null;
}

function probeInvariants(e: ProbeEvent): Violation | null {
  if (RESERVED_NAMES.has(e.location)) return { path: '/location', message: `"${e.location}" is reserved and cannot name a probe location` };
  return null;
}

function shadowSideInvariants(s: ShadowSide, pairs: number, at: string): Violation | null {
  let failed = 0;
  for (const n of Object.values(s.errors)) failed += n ?? 0;
  if (s.ok + failed > pairs) return { path: `${at}/ok`, message: `ok + errors (${s.ok} + ${failed}) must not exceed pairs (${pairs})` };
  if (s.refusals > pairs) return { path: `${at}/refusals`, message: `refusals (${s.refusals}) must not exceed pairs (${pairs})` };
  if (s.json && s.json.valid > s.json.checked) return { path: `${at}/json/valid`, message: `json valid (${s.json.valid}) must not exceed checked (${s.json.checked})` };
  if (s.json && s.json.checked > pairs) return { path: `${at}/json/checked`, message: `json checked (${s.json.checked}) must not exceed pairs (${pairs})` };
  if (s.validation && s.validation.passed > s.validation.checked) {
    return { path: `${at}/validation/passed`, message: `validation passed (${s.validation.passed}) must not exceed checked (${s.validation.checked})` };
  }
  if (s.validation && s.validation.checked > pairs) return { path: `${at}/validation/checked`, message: `validation checked (${s.validation.checked}) must not exceed pairs (${pairs})` };
  const latency = histogramTotal(s.latency_ms);
  if (latency > pairs) return { path: `${at}/latency_ms/counts`, message: `latency counts (${latency}) must not exceed pairs (${pairs})` };
  if (s.ttft_ms && histogramTotal(s.ttft_ms) > pairs) return { path: `${at}/ttft_ms/counts`, message: `ttft counts must not exceed pairs (${pairs})` };
  return null;
}

function shadowInvariants(e: ShadowEvent): Violation | null {
  return shadowSideInvariants(e.primary, e.pairs, '/primary') ?? shadowSideInvariants(e.shadow, e.pairs, '/shadow');
}

/**
 * Cross-field checks run after an event matched its schema: figures that each look fine
 * but cannot all be true together (9 errors out of 1 call) would make every share derived
 * from them wrong for as long as the rollup is kept.
 */
export function checkInvariants(event: TelemetryEvent): Violation | null {
  switch (event.type) {
    case 'window':
      return windowInvariants(event);
    case 'tasks':
      return tasksInvariants(event);
    case 'probe':
      return probeInvariants(event);
    case 'shadow':
      return shadowInvariants(event);
    default:
      return null;
  }
}
