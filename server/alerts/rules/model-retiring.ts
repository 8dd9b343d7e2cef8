import { fingerprint } from '../fingerprint.ts';
import { num } from '../../verdicts/text.ts';
import { daysLeft } from '../../lifecycle/calendar.ts';
import type { KeyInUse } from '../../lifecycle/models-in-use.ts';
import { signalText } from '../../lifecycle/provider-signals.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';

const DAY = 86_400_000;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** "1 hour", "5 minutes", "90 seconds": the retired_calls_s span in the summary. */
const duration = (s: number) => (s % 3600 === 0 ? plural(s / 3600, 'hour') : s % 60 === 0 ? plural(s / 60, 'minute') : plural(s, 'second'));

/**
 * A retirement is a scheduled outage (docs/lifecycle.md, "The model_retiring rule"): every key
 * called within `traffic_days` whose model the calendar retires within `warning_days` fires,
 * as the configured severity, and as critical within `critical_days`; a model already retired
 * and still called (calls within the last `retired_calls_s`) is critical. The text names the services still
 * calling it and the successor. A date the provider announced (its `Sunset` header, for a model
 * without a calendar entry) counts the same, and the text says so. The value is the days left
 * (negative once retired).
 */
export const modelRetiringRule: Rule<RulesConfig['model_retiring']> = async (ctx, cfg) => {
  const from = ctx.now - cfg.traffic_days * DAY;
  const out: Condition[] = [];
  const inUse = (await ctx.keysInUse(from)).filter((k) => k.retirement !== null && daysLeft(k.retirement, ctx.now) <= cfg.warning_days);
  // A retired model's callers are those of the last retired_calls_s: one more read, made once and only when a key is past its date.
  let recent: Promise<Map<number, KeyInUse>> | undefined;
  const recentCalls = () => (recent ??= ctx.keysInUse(Math.max(from, ctx.now - cfg.retired_calls_s * 1000)).then((list) => new Map(list.map((k) => [k.keyId, k]))));
  for (const k of inUse) {
    const r = k.retirement!;
    const left = daysLeft(r, ctx.now);
    const retired = r.shutdownAt <= ctx.now;
    // Still called once retired: calls in the last retired_calls_s (minute-rounded). Not only
    // those after the date: right after it the newest windows have not arrived yet, and a
    // service that called it minutes ago has shown no sign of moving. A migrated one stops paging.
    const after = retired ? (await recentCalls()).get(k.keyId) : undefined;
    if (retired && !after) continue; // retired, and nobody called it lately: nothing left to warn about
    const callers = retired ? after!.services : k.services;
    const calls = retired ? after!.calls : k.calls;
    // A date from the provider's Sunset header, not the calendar: say where it came from.
    const source = r.source === 'provider' && k.signal ? ` (no calendar entry; ${signalText(k.signal)})` : '';
    const successor = (r.successor ? `; successor: ${r.successor}` : '; no successor named') + source;
    const model = `${r.provider} ${k.key.model}`;
    const text = retired
      ? `${model} retired on ${r.shutdown} and is still called: ${num(calls)} calls in the last ${duration(cfg.retired_calls_s)} by ${callers.join(', ')}${successor}`
      : `${model} retires on ${r.shutdown}, ${left === 1 ? 'within a day' : `in ${plural(left, 'day')}`}; still called by ${callers.join(', ')} (${num(calls)} calls over the last ${plural(cfg.traffic_days, 'day')})${successor}`;
    out.push({
      fingerprint: fingerprint('model_retiring', k.key),
      rule: 'model_retiring',
      keyId: k.keyId,
      key: k.key,
      location: null,
      operation: null,
      status: 'fire',
      value: Number(((r.shutdownAt - ctx.now) / DAY).toFixed(2)),
      text,
      severity: retired || left <= cfg.critical_days ? 'critical' : cfg.severity,
    });
  }
  return out;
};
