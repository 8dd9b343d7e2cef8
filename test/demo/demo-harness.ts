/**
 * Runs `demo/main.ts` as a child process (as `npm run demo` does), follows its output —
 * the dashboard URL, the read token, the probers' pids, the retirement's instant, the
 * temporary folder, and each phase's and event's start — and reads the collector's public
 * APIs with the printed token.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { BreakerKey } from '../../sdk/index.ts';

export const ROOT = join(import.meta.dirname, '..', '..');

/** A phase as the demo announced it. */
export interface PhaseSeen {
  id: string;
  index: number;
  /** When the line arrived (ms since the epoch). */
  start: number;
  end: number;
}

/** The demo child and what it printed. */
export interface DemoProcess {
  child: ChildProcess;
  url: string;
  token: string;
  dir: string;
  proberPids: number[];
  /** The shutdown instant of the demo's retiring model, as printed (ms since the epoch). */
  retireAt: number;
  /** Every line printed so far (stdout and stderr). */
  lines: string[];
  /** Resolves when the phase starts (it may have started already). */
  phase(id: string, timeoutMs: number): Promise<PhaseSeen>;
  /** Resolves with when a timeline event was printed (ms since the epoch). */
  event(id: string, timeoutMs: number): Promise<number>;
  /** Resolves when a line matching `re` has been printed. */
  line(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the demo with `args` and waits for its header. */
export async function startDemoProcess(args: string[], env: NodeJS.ProcessEnv): Promise<DemoProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'run-ts.js'), 'demo/main.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const phases = new Map<string, PhaseSeen>();
  const events = new Map<string, number>();
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      lines.push(line);
      const m = /phase (\d+)\/\d+ (\w+) \(loop 1, (\d+) s\)/.exec(line);
      if (m) {
        const start = Date.now();
        phases.set(m[2]!, { id: m[2]!, index: Number(m[1]), start, end: start + Number(m[3]) * 1000 });
      }
      const e = /event (\w+) \(loop 1\)/.exec(line);
      if (e && !events.has(e[1]!)) events.set(e[1]!, Date.now());
    }
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const waitFor = <T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`demo: ${what} not printed within ${timeoutMs} ms; output so far:\n${lines.join('\n')}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const line = (re: RegExp, timeoutMs: number) =>
    waitFor(() => lines.map((l) => re.exec(l)).find((m): m is RegExpExecArray => m !== null), timeoutMs, String(re));

  const url = (await line(/dashboard:\s+(http:\/\/\S+?)\/?$/, 90_000))[1]!;
  const token = (await line(/read token:\s+(\S+)/, 5_000))[1]!;
  const probers = (await line(/probers:\s+(.*)$/, 5_000))[1]!;
  const retireAt = Date.parse((await line(/retirement:\s+\S+ \S+ shuts down at (\S+)/, 5_000))[1]!);
  const dir = (await line(/data:\s+(\S+) \(removed on exit\)/, 5_000))[1]!;
  return {
    child,
    url,
    token,
    dir,
    proberPids: [...probers.matchAll(/pid (\d+)/g)].map((m) => Number(m[1])),
    retireAt,
    lines,
    phase: (id, timeoutMs) => waitFor(() => phases.get(id), timeoutMs, `phase ${id}`),
    event: (id, timeoutMs) => waitFor(() => events.get(id), timeoutMs, `event ${id}`),
    line,
    exited,
  };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The read API with the demo's token. */
export function readApi(url: string, token: string) {
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const keyQuery = (k: BreakerKey) => `provider=${encodeURIComponent(k.provider)}&endpoint=${encodeURIComponent(k.endpoint)}&model=${encodeURIComponent(k.model)}`;
  const text = async (path: string): Promise<string> => {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res.text();
  };
  return {
    incidents: (from: number, to: number) => get<{ incidents: IncidentEntry[] }>(`/api/incidents?from=${from}&to=${to}`).then((r) => r.incidents),
    /** The provider ticket of an incident (plain text, docs/api.md). */
    ticket: (id: string, from: number, to: number) => text(`/api/incidents/${encodeURIComponent(id)}/ticket?from=${from}&to=${to}`),
    verdicts: (from: number, to: number) => get<{ verdicts: VerdictEntry[] }>(`/api/verdicts?from=${from}&to=${to}`).then((r) => r.verdicts),
    verdictsWindow: (window: string) => get<{ verdicts: VerdictEntry[] }>(`/api/verdicts?window=${window}`).then((r) => r.verdicts),
    alerts: (state?: string) => get<{ alerts: AlertEntry[] }>(`/api/alerts${state ? `?state=${state}` : ''}`).then((r) => r.alerts),
    key: (k: BreakerKey, from: number, to: number) => get<KeyDetail>(`/api/key?${keyQuery(k)}&from=${from}&to=${to}`),
    lifecycle: () => get<{ models: LifecycleModel[] }>('/api/lifecycle').then((r) => r.models),
    shadow: (window: string) => get<{ pairs: ShadowPair[] }>(`/api/shadow?window=${window}`).then((r) => r.pairs),
    cost: (operation: string, from: number, to: number) =>
      get<{ operations: { operation: string; levels: Record<string, number | null>; fallback: { invoked: number; failed: number } }[] }>(
        `/api/cost?from=${from}&to=${to}&operation=${encodeURIComponent(operation)}`,
      ).then((r) => r.operations[0]),
  };
}

/** The parts of a `/api/verdicts` entry the test reads (docs/api.md). */
export interface VerdictEntry {
  key: BreakerKey;
  verdict: string;
  hint: string | null;
  clients: {
    calls: number;
    failed: number;
    slow: number;
    slow_share: number | null;
    open_share: number | null;
    provider_error_share: number | null;
    errors: Record<string, number>;
  };
  probes: Record<string, { status: string }>;
  evidence: string[];
}

/** The parts of a `/api/incidents` entry the test reads. */
export interface IncidentEntry {
  id: string;
  verdict: string;
  keys: { key: BreakerKey; verdict: string }[];
}

/** The parts of a `/api/lifecycle` model the test reads. */
export interface LifecycleModel {
  provider: string;
  model: string;
  services: string[];
  retirement: { shutdown: string; shutdown_at: number; successor: string | null; source: string } | null;
  days_left: number | null;
  status: string;
}

/** One side of a `/api/shadow` pair, the parts the test reads. */
export interface ShadowSide {
  answers: number;
  truncation_share: { value: number; n: number } | null;
  output_tokens_per_call: number | null;
  cost_per_call_usd: number | null;
}

/** The parts of a `/api/shadow` pair the test reads. */
export interface ShadowPair {
  key: BreakerKey;
  candidate: BreakerKey;
  services: string[];
  pairs: number;
  primary: ShadowSide;
  shadow: ShadowSide;
  bill: { primary_usd_per_month: number; projected_usd_per_month: number; ratio: number; delta_usd_per_month: number } | null;
  bill_statement: string;
}

/** The parts of an alert the test reads. */
export interface AlertEntry {
  rule: string;
  key: BreakerKey | null;
  state: 'pending' | 'firing' | 'resolved';
  severity: string;
  summary: string;
  hint: string | null;
  started_at: number;
  fired_at: number | null;
  resolved_at: number | null;
}

/** The parts of `/api/key` the test reads. */
export interface KeyDetail {
  services: { service: string; degraded: boolean; calls: number }[];
  transitions: { ts: number; instance: string; from: string | null; to: string; reason: string }[];
}

/**
 * Asks `probe` every `everyMs` until it returns a value, or fails at `deadline` (ms since
 * the epoch) with `what` and the last observation `describe()` gives.
 */
export async function eventually<T>(what: string, deadline: number, probe: () => Promise<T | undefined>, describe: () => string, everyMs = 2_000): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`${what}: not seen before the deadline; last seen: ${describe()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
