import { fingerprint } from '../fingerprint.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';
import { keyFromRow } from '../../storage/telemetry-store.ts';

/**
 * Probe failing, per key and location: fires after `consecutive` failed (error or slow)
 * warm probes in a row, resolves after `resolve_consecutive` ok ones in a row (or when the
 * location stops probing the key within `lookback_s`).
 */
export const probeFailingRule: Rule<RulesConfig['probe_failing']> = (ctx, cfg) => {
  const rows = ctx.db
    .prepare(`SELECT p.key_id, p.location, p.outcome, p.error_class, p.status, k.provider, k.endpoint, k.model, k.region
      FROM probe_events p JOIN keys k ON k.id = p.key_id
      WHERE p.ts > ? AND p.ts <= ? AND p.cold = 0 ORDER BY p.key_id, p.location, p.ts DESC, p.id DESC`)
    .all(ctx.now - cfg.lookback_s * 1000, ctx.now) as {
    key_id: number; location: string; outcome: string; error_class: string | null; status: number | null;
    provider: string; endpoint: string; model: string; region: string;
  }[];
  const out: Condition[] = [];
  let i = 0;
  while (i < rows.length) {
    const head = rows[i]!;
    const outcomes: boolean[] = [];
    for (; i < rows.length && rows[i]!.key_id === head.key_id && rows[i]!.location === head.location; i++) outcomes.push(rows[i]!.outcome === 'ok');
    // The run of equal outcomes from the newest probe backwards.
    let run = 0;
    while (run < outcomes.length && outcomes[run] === outcomes[0]) run++;
    const failedRun = outcomes[0] ? 0 : run;
    const okRun = outcomes[0] ? run : 0;
    const key = keyFromRow(head);
    const last = head.outcome === 'ok' ? 'ok' : `${head.outcome}${head.error_class ? ` ${head.error_class}` : ''}${head.status ? ` ${head.status}` : ''}`;
    const misconfigured = head.error_class === 'auth' || head.error_class === 'bad_request';
    out.push({
      fingerprint: fingerprint('probe_failing', key, head.location),
      rule: 'probe_failing',
      keyId: head.key_id,
      key,
      location: head.location,
      operation: null,
      status: failedRun >= cfg.consecutive ? 'fire' : okRun >= cfg.resolve_consecutive ? 'clear' : 'hold',
      value: failedRun,
      text:
        failedRun > 0
          ? `probe from ${head.location} failed ${failedRun} times in a row (last: ${last})${misconfigured ? ' — the probe itself looks misconfigured' : ''}`
          : `probe from ${head.location} ok ${okRun} times in a row`,
    });
  }
  return out;
};
