/**
 * `breakerbox fleet drain|release|list` (docs/fleet.md, "On-call's lever"). Two ways in:
 * with `--url` (and an admin token in `--token` or BREAKERBOX_TOKEN) through the collector's
 * admin API, the way an on-call laptop reaches it; without, on the database directly, as
 * `breakerbox token` does on the collector's host (database access is the admin right there).
 * Either way the decision is stored once and every collector's feed serves it.
 */
import { parseArgs } from 'node:util';
import { userInfo } from 'node:os';
import type { BreakerKey } from '@breakerbox/protocol';
import { ConfigError, loadConfig } from '../config/load.ts';
import { systemClock } from '../clock.ts';
import { openStorage } from '../storage/open-storage.ts';
import { createFleetService, type FleetDecisionView } from './fleet-service.ts';
import { EXIT_USAGE, collectorBase, collectorFetch } from '../cli-errors.ts';

/** The command's help text. */
export const FLEET_USAGE = `usage: breakerbox fleet drain   --key KEY --reason TEXT --expires WHEN
       breakerbox fleet release --key KEY --reason TEXT
       breakerbox fleet list    --key KEY

  --key      the breaker key as JSON, e.g. '{"provider":"openai","endpoint":"chat","model":"gpt-4o"}'
             (or --provider, --endpoint, --model and optionally --region)
  --reason   why, kept in the audit trail and shown to the instances
  --expires  when the drain ends by itself: a duration (90s, 30m, 2h, 1d) or an ISO time
  --url      a collector's base URL: act through its admin API (token: --token or BREAKERBOX_TOKEN,
             with the admin right); without --url, act on the database (--db, --config)

A drain forces the key's breaker open on every subscribed SDK instance (renewed every
third of fleet.ttl_s while it runs); release ends it and sends open breakers to half-open.`;

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses `--expires` into an absolute time. */
export function parseExpiry(text: string, now: number): number {
  const d = DURATION.exec(text);
  if (d) return now + Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS];
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new ConfigError(`fleet: --expires must be a duration (90s, 30m, 2h, 1d) or an ISO time, got "${text}"`);
  return at;
}

function keyOf(v: { key?: string; provider?: string; endpoint?: string; model?: string; region?: string }): BreakerKey {
  if (v.key) {
    let k: unknown;
    try {
      k = JSON.parse(v.key);
    } catch {
      throw new ConfigError('fleet: --key must be JSON, e.g. \'{"provider":"openai","endpoint":"chat","model":"gpt-4o"}\'');
    }
    const o = k as Record<string, unknown>;
    if (!o || typeof o.provider !== 'string' || typeof o.endpoint !== 'string' || typeof o.model !== 'string') {
      throw new ConfigError('fleet: --key needs provider, endpoint and model');
    }
    return { provider: o.provider, endpoint: o.endpoint, model: o.model, ...(typeof o.region === 'string' && o.region ? { region: o.region } : {}) };
  }
  if (!v.provider || !v.endpoint || !v.model) throw new ConfigError('fleet: give --key, or --provider, --endpoint and --model');
  return { provider: v.provider, endpoint: v.endpoint, model: v.model, ...(v.region ? { region: v.region } : {}) };
}

const line = (d: FleetDecisionView) =>
  `${d.kind}\t${new Date(d.issued_at).toISOString()}\t${d.active ? 'active' : 'ended'}\tuntil ${new Date(d.ended_at ?? d.expires_at).toISOString()}\tby ${d.created_by ?? d.origin}\tapplied on ${d.applied_instances}\t${d.reason}`;

/** Runs `breakerbox fleet …`; resolves to the exit code. */
export async function fleetCommand(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      db: { type: 'string' }, config: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      key: { type: 'string' }, provider: { type: 'string' }, endpoint: { type: 'string' }, model: { type: 'string' }, region: { type: 'string' },
      reason: { type: 'string' }, expires: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' },
    },
  });
  if (values.help || sub === undefined || sub === '--help') {
    console.log(FLEET_USAGE);
    return values.help || sub === '--help' ? 0 : EXIT_USAGE;
  }
  if (!['drain', 'release', 'list'].includes(sub)) {
    console.error(`breakerbox: unknown fleet command "${sub}" (see "breakerbox fleet --help")`);
    return EXIT_USAGE;
  }
  const key = keyOf(values);
  const now = Date.now();
  if (sub !== 'list' && !values.reason) throw new ConfigError(`fleet ${sub}: --reason is required`);
  if (sub === 'drain' && !values.expires) throw new ConfigError('fleet drain: --expires is required (a drain always ends)');
  const expiresAt = sub === 'drain' ? parseExpiry(values.expires!, now) : 0;

  if (values.url) return viaApi(sub, values.url, values.token ?? env.BREAKERBOX_TOKEN, key, values.reason ?? '', expiresAt);

  const flags: Record<string, string> = {};
  if (values.db) flags.db = values.db;
  if (values.config) flags.config = values.config;
  const config = loadConfig({ env, flags });
  const storage = await openStorage(config, systemClock);
  try {
    const service = createFleetService(storage, { ttlMs: config.fleet.ttl_s * 1000, maxProbeAgeMs: config.fleet.max_probe_age_s * 1000 });
    const by = `cli:${userInfo().username}`;
    if (sub === 'drain') {
      if (expiresAt <= now) throw new ConfigError('fleet drain: --expires is in the past');
      if (expiresAt - now > config.fleet.max_drain_s * 1000) throw new ConfigError(`fleet drain: a drain lasts at most fleet.max_drain_s (${config.fleet.max_drain_s} s)`);
      console.log(line(await service.drain(key, values.reason!, expiresAt, by, now)));
      return 0;
    }
    if (sub === 'release') {
      const d = await service.release(key, values.reason!, by, now);
      if (!d) {
        console.error('breakerbox: no drain of this key is running');
        return 1;
      }
      console.log(line(d));
      return 0;
    }
    const list = await service.forKey(key, now - 7 * 86_400_000, now, 200);
    if (list.length === 0) console.log('no fleet decisions for this key in the last 7 days');
    for (const d of list) console.log(line(d));
    return 0;
  } finally {
    await storage.close();
  }
}

async function viaApi(sub: string, base: string, token: string | undefined, key: BreakerKey, reason: string, expiresAt: number): Promise<number> {
  const root = collectorBase(base);
  if (!token) throw new ConfigError('fleet: --url needs an admin token (--token or BREAKERBOX_TOKEN)');
  const url = new URL(sub === 'list' ? 'api/fleet' : `api/fleet/${sub}`, root);
  if (sub === 'list') for (const [k, v] of Object.entries(key)) url.searchParams.set(k, v);
  const res = await collectorFetch(url, {
    method: sub === 'list' ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(sub === 'list' ? {} : { 'content-type': 'application/json' }) },
    ...(sub === 'list' ? {} : { body: JSON.stringify(sub === 'drain' ? { key, reason, expires_at: expiresAt } : { key, reason }) }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json().catch(() => ({}))) as { decision?: FleetDecisionView; decisions?: FleetDecisionView[]; error?: { code: string; message: string } };
  if (!res.ok) {
    console.error(`breakerbox: the collector answered ${res.status}${body.error ? ` ${body.error.code}: ${body.error.message}` : ''}`);
    return 1;
  }
  for (const d of body.decisions ?? (body.decision ? [body.decision] : [])) console.log(line(d));
  return 0;
}
