/**
 * `breakerbox drill run|stop|show|list` (docs/drills.md): through a collector's admin API,
 * since the command reaches the instances over that collector's feeds. `run` waits for the
 * report, prints it, and exits 0 only when every drill passed — 1 on a failed or
 * inconclusive drill — so a staging pipeline can gate on it.
 */
import { parseArgs } from 'node:util';
import { DRILL_KINDS, type DrillKind } from '@breakerbox/protocol';
import { ConfigError } from '../config/load.ts';
import type { DrillRunReply, DrillRunView } from '../schemas/drills.ts';
import { reportText } from './report-text.ts';
import { EXIT_USAGE, collectorBase, collectorFetch, joinNegativeValues } from '../cli-errors.ts';

/** The command's help text. */
export const DRILL_USAGE = `usage: breakerbox drill run  --service S [--drills 429,ttft,down,length,rename,auth] [--minutes N | --step-s N]
       breakerbox drill stop ID
       breakerbox drill show ID
       breakerbox drill list [--service S]

  --url      the collector's base URL (or BREAKERBOX_URL); --token or BREAKERBOX_TOKEN: admin right
  --service  the service whose subscribed instances (drills enabled) run the drills
  --drills   which drills, comma-separated (default all six, in this order):
             429 = rate_limit, ttft = slow_first_byte, down = primary_down,
             length = truncated, rename = field_renamed, auth = auth_revoked
  --minutes  how long each drill runs (default 10); --step-s the same in seconds
  --keys     the drilled keys as a JSON array (default every chain's primary)
  --no-wait  print the run and exit at once
  --schedule-anyway  start it even when no instance of the service is subscribed for drills
             (otherwise the collector refuses, naming the services that are, and this exits 1)

run waits for the report (the run's length plus drills.grace_s), prints it, and exits 0
when every drill passed, 1 when one failed or could not be judged. A run no instance
received ends (inconclusive) as soon as the collectors stop sending it, a few seconds in.`;

/** Short names a pipeline types, and the protocol's own. */
export const DRILL_ALIASES: Record<string, DrillKind> = {
  '429': 'rate_limit', ttft: 'slow_first_byte', down: 'primary_down', length: 'truncated', rename: 'field_renamed', auth: 'auth_revoked',
  ...Object.fromEntries(DRILL_KINDS.map((k) => [k, k])),
};

/** Parses `--drills`. */
export function parseDrills(text: string): DrillKind[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((name) => {
    const kind = DRILL_ALIASES[name];
    if (!kind) throw new ConfigError(`drill: unknown drill "${name}" (one of ${Object.keys(DRILL_ALIASES).join(', ')})`);
    return kind;
  });
}

/** Flags whose value is a number a user may type negative (refused by the command's own check, naming it). */
const NUMBER_FLAGS: ReadonlySet<string> = new Set(['minutes', 'step-s', 'poll-ms']);

/** Where the command writes; tests pass their own. */
export interface DrillIo {
  out(line: string): void;
  err(line: string): void;
  /** Pause between reads of a running drill. */
  sleep(ms: number): Promise<void>;
}

const defaultIo: DrillIo = { out: (l) => console.log(l), err: (l) => console.error(l), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/** Runs `breakerbox drill …`; resolves to the exit code. */
export async function drillCommand(args: string[], env: Record<string, string | undefined>, io: DrillIo = defaultIo): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: joinNegativeValues(rest, NUMBER_FLAGS),
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' }, url: { type: 'string' }, token: { type: 'string' }, service: { type: 'string' },
      drills: { type: 'string' }, minutes: { type: 'string' }, 'step-s': { type: 'string' }, keys: { type: 'string' }, 'no-wait': { type: 'boolean' },
      'schedule-anyway': { type: 'boolean' },
      'poll-ms': { type: 'string' },
    },
  });
  if (values.help || sub === undefined) {
    io.out(DRILL_USAGE);
    return values.help ? 0 : EXIT_USAGE;
  }
  if (!['run', 'stop', 'show', 'list'].includes(sub)) {
    io.err(`breakerbox: unknown drill command "${sub}" (see "breakerbox drill --help")`);
    return EXIT_USAGE;
  }
  const base = values.url ?? env.BREAKERBOX_URL;
  const token = values.token ?? env.BREAKERBOX_TOKEN;
  if (!base) throw new ConfigError('drill: --url (or BREAKERBOX_URL) is required: drills are sent through a collector');
  const root = collectorBase(base, values.url !== undefined ? '--url' : 'BREAKERBOX_URL');
  if (!token) throw new ConfigError('drill: an admin token is required (--token or BREAKERBOX_TOKEN)');
  const api = async (method: string, path: string, body?: object): Promise<{ status: number; json: any }> => {
    const res = await collectorFetch(new URL(path, root), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, json: await res.json().catch(() => ({})) };
  };
  const refused = (r: { status: number; json: any }) => {
    io.err(`breakerbox: the collector answered ${r.status}${r.json?.error ? ` ${r.json.error.code}: ${r.json.error.message}` : ''}`);
    return 1;
  };

  if (sub === 'list') {
    const r = await api('GET', `api/drills${values.service ? `?service=${encodeURIComponent(values.service)}` : ''}`);
    if (r.status !== 200) return refused(r);
    for (const run of r.json.runs as DrillRunView[]) {
      io.out(`${run.id}\t${run.service}\t${new Date(run.issued_at).toISOString()}\t${run.status}\t${run.report?.outcome ?? '-'}\t${run.kinds.join(',')}`);
    }
    return 0;
  }
  if (sub === 'stop' || sub === 'show') {
    const id = positionals[0];
    if (!id) throw new ConfigError(`drill ${sub}: give the run's id`);
    const r = sub === 'stop' ? await api('POST', `api/drills/${encodeURIComponent(id)}/stop`) : await api('GET', `api/drills/${encodeURIComponent(id)}`);
    if (r.status !== 200) return refused(r);
    io.out(reportText((r.json as DrillRunReply).run));
    return 0;
  }

  if (!values.service) throw new ConfigError('drill run: --service is required');
  if (values.minutes !== undefined && values['step-s'] !== undefined) throw new ConfigError('drill run: give --minutes or --step-s, not both');
  const num = (name: string, v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`drill run: --${name} must be a positive number, got "${v}"`);
    return n;
  };
  let keys: unknown;
  if (values.keys) {
    try {
      keys = JSON.parse(values.keys);
    } catch {
      throw new ConfigError('drill run: --keys must be a JSON array of keys');
    }
  }
  const body = {
    service: values.service,
    ...(values.drills ? { kinds: parseDrills(values.drills) } : {}),
    ...(values.minutes !== undefined ? { minutes: num('minutes', values.minutes) } : {}),
    ...(values['step-s'] !== undefined ? { step_s: Math.round(num('step-s', values['step-s'])) } : {}),
    ...(keys ? { keys } : {}),
    ...(values['schedule-anyway'] ? { schedule_anyway: true } : {}),
  };
  const started = await api('POST', 'api/drills', body);
  if (started.status !== 201) return refused(started);
  let run = (started.json as DrillRunReply).run;
  io.out(`drill ${run.id} started on ${run.service}: ${run.kinds.join(', ')}, ${run.step_ms / 1000} s each; sent to ${started.json.sent_to} feed(s) of this collector`);
  if (values['no-wait']) return 0;
  const began = Date.now();
  const pollMs = values['poll-ms'] ? num('poll-ms', values['poll-ms']) : 2000;
  while (run.status !== 'done') {
    await io.sleep(pollMs);
    const r = await api('GET', `api/drills/${encodeURIComponent(run.id)}`);
    if (r.status !== 200) return refused(r);
    run = (r.json as DrillRunReply).run;
  }
  io.out(reportText(run));
  io.out(`the drill took ${Math.round((Date.now() - began) / 1000)} s (${run.kinds.length} x ${run.step_ms / 1000} s, then the collector's grace for late telemetry)`);
  return run.report!.outcome === 'pass' ? 0 : 1;
}
