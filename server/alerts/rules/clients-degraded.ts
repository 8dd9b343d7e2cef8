import { fingerprint } from '../fingerprint.ts';
import { duration, pct } from '../summary.ts';
import { HURT } from '../../verdicts/incidents.ts';
import { num } from '../../verdicts/text.ts';
import { VERDICTS, type Hint, type Verdict } from '../../verdicts/types.ts';
import type { Condition } from '../types.ts';
import type { Rule, RulesConfig } from './context.ts';
import { clientsOnset } from './clients-onset.ts';

const label = (verdict: Verdict, hint: Hint | null) => `${verdict}${hint ? ` / ${hint}` : ''}`;

/**
 * Every incident that hurts pages, breaker or not (docs/alerts.md, "clients_degraded"):
 * per key, over the last `window_s`, clients degraded with a decided verdict
 * (`self_inflicted` with any hint, `provider_outage`, `provider_suspected`, `provider_degraded`
 * with `slow` or `wrong_answers`) on at least `min_calls` calls — with `wrong_answers` also when
 * no call failed: clients that validate nothing are served the wrong answers (issue 39). The key is judged as a whole and each service calling it on its own
 * calls, so a service failing on its exhausted quota pages even while the key's other
 * callers are fine. Hysteresis: it holds while the worst part still fails at
 * `resolve_error_share` or more, and resolves below. Its `for_s` runs from the data onset of
 * the failing part (clients-onset.ts).
 */
export const clientsDegradedRule: Rule<RulesConfig['clients_degraded']> = async (ctx, cfg) => {
  const out: Condition[] = [];
  for (const [keyId, a] of await ctx.analysesOver(cfg.window_s)) {
    const d = a.decision;
    // Served wrong answers (canaries wrong, issue 39): hurt whether the clients' validation fails them or they validate nothing.
    const served = d.hint === 'wrong_answers' && d.verdict === 'provider_degraded';
    const whole = (a.clients.degraded || served) && HURT.includes(d.verdict) && a.clients.calls >= cfg.min_calls;
    const hurt = a.services.filter((s) => s.degraded && s.verdict !== null && HURT.includes(s.verdict) && s.calls >= cfg.min_calls);
    const worstShare = Math.max(a.clients.error_share ?? 0, ...a.services.map((s) => s.error_share ?? 0));
    if (!whole && hurt.length === 0 && worstShare < cfg.resolve_error_share) continue; // clear: an alert left without a condition resolves
    // The verdict paged: the key's own when it is hurt as a whole, else the worst of the hurt services'.
    // The key's own decision names its worst service when it took that service's verdict (service-lead.ts).
    const lead = whole || (d.service?.led && hurt.length > 0) ? { verdict: d.verdict, hint: d.hint } : [...hurt].sort((x, y) => VERDICTS.indexOf(x.verdict!) - VERDICTS.indexOf(y.verdict!))[0];
    const failing = hurt.length > 0 ? hurt : a.services.filter((s) => s.degraded);
    const names = failing.map((s) => s.name);
    // The worst failing part's error share: a service failing every call reads 1, however many healthy callers dilute the key.
    const value = Math.max(whole ? (a.clients.error_share ?? 0) : 0, ...failing.map((s) => s.error_share ?? 0));
    const parts = failing.map((s) => `${s.name} ${pct(s.error_share)} of ${num(s.calls)} calls failed${s.verdict && !whole ? ` (${label(s.verdict, s.hint)})` : ''}`);
    // Slow or shedding with no failed call (issue 36): say so, never "0% of calls failed".
    const slowOnly = whole && a.clients.failed === 0 && !served;
    const invalid = a.clients.errors.invalid_output ?? 0;
    const text = served && whole
      ? `clients served wrong answers over the last ${duration(cfg.window_s)}: answer canaries wrong from ${d.answers!.side.wrong.join(', ')}; ${invalid > 0 ? `${pct(invalid / a.clients.calls)} of ${num(a.clients.calls)} calls failed validation (invalid_output)` : `${num(a.clients.calls)} calls, none failed validation (nothing validates them)`}`
      : slowOnly
      ? `clients slow over the last ${duration(cfg.window_s)}: ${pct(a.clients.slow_share)} of ${num(a.clients.calls)} calls slow${a.clients.rejected > 0 ? `, ${pct(a.clients.rejection_share)} of attempts rejected by the bulkhead` : ''}, none failed`
      : lead
      ? `clients failing over the last ${duration(cfg.window_s)}: ${parts.join('; ') || `${pct(a.clients.error_share)} of ${num(a.clients.calls)} calls failed`}${a.services.length > failing.length ? ` (${failing.length} of ${a.services.length} services calling the key)` : ''}`
      : `clients recovering over the last ${duration(cfg.window_s)}: worst error share ${pct(worstShare)}`;
    const status = whole || hurt.length > 0 ? 'fire' : 'hold';
    // for_s on the data's timeline: since the paging part's minutes began failing (read only when it matters);
    // clients served wrong answers without failing have no failing minutes: for_s runs from the condition's first evaluation.
    const onset = status === 'fire' && cfg.for_s > 0 && (a.clients.degraded || !served) ? await clientsOnset(ctx, a, whole ? null : hurt.map((s) => s.name), cfg.window_s) : undefined;
    out.push({
      fingerprint: fingerprint('clients_degraded', a.info.key),
      rule: 'clients_degraded',
      keyId,
      key: a.info.key,
      location: null,
      operation: null,
      status,
      value: Number((lead ? value : worstShare).toFixed(4)),
      text,
      ...(onset === undefined ? {} : { onset }),
      ...(lead && !whole ? { verdict: { verdict: lead.verdict!, hint: lead.hint, phrase: `${label(lead.verdict!, lead.hint)} on ${names.join(', ')}` } } : {}),
    });
  }
  return out;
};
