/**
 * The key says what its worst service says (docs/alerts.md, "The worst service leads"): a
 * service degraded with a decided verdict of its own is not hidden by healthy callers that
 * dilute the key's totals. The key's figures stay the whole key's; its verdict, hint and
 * evidence lead with that service.
 */
import type { Decision, HurtService, ServiceLead } from './rules.ts';
import type { ServiceHealth } from './fleet-parts.ts';
import type { ClientFigures, Verdict } from './types.ts';
import { VERDICTS } from './types.ts';

/**
 * Decided verdicts of clients that hurt: they page (alerts.rules.clients_degraded) and make an
 * incident. `provider_degraded` hurts only with degraded clients (every use checks them): the
 * provider slow from some locations (hint `slow`, issue 36).
 */
export const HURT: readonly Verdict[] = ['provider_outage', 'provider_suspected', 'self_inflicted', 'provider_degraded'];

/**
 * A key's own decision that already speaks for hurt clients; `provider_degraded` does only with
 * `slow` (clients slow) or `wrong_answers` (clients served wrong answers, whether their validation
 * catches them or not), else it is an early warning over clients that are fine.
 */
const keyHurts = (d: Decision): boolean => HURT.includes(d.verdict) && (d.verdict !== 'provider_degraded' || d.hint === 'slow' || d.hint === 'wrong_answers');

export type { HurtService, ServiceLead } from './rules.ts';

const hurts = (s: ServiceHealth): s is ServiceHealth & { figures: ClientFigures; decision: Decision } =>
  s.degraded && s.verdict !== null && HURT.includes(s.verdict) && s.figures !== undefined && s.decision !== undefined;

/** Worst first: by VERDICTS order, then by error share, then by calls. */
function byWorst(a: HurtService, b: HurtService): number {
  return (
    VERDICTS.indexOf(a.decision.verdict) - VERDICTS.indexOf(b.decision.verdict) ||
    (b.figures.error_share ?? 0) - (a.figures.error_share ?? 0) ||
    b.figures.calls - a.figures.calls ||
    a.name.localeCompare(b.name)
  );
}

/**
 * The key's decision with its services judged: when several services call the key and at
 * least one is degraded with a decided verdict that hurts while another is not degraded,
 * the decision carries `service` (naming them); when the key's own verdict is not a decided
 * one that hurts (healthy, provider_degraded, insufficient_data over diluted totals), the
 * worst service's decision becomes the key's. Otherwise `d` unchanged.
 */
export function leadWithWorstService(d: Decision, services: ServiceHealth[]): Decision {
  if (services.length < 2) return d;
  const hurt: HurtService[] = services.filter(hurts).map((s) => ({ name: s.name, figures: s.figures, decision: s.decision }));
  if (hurt.length === 0) return d;
  const healthy = services.filter((s) => !s.degraded).map((s) => ({ name: s.name, calls: s.calls }));
  // Every service degraded: the key is degraded as a whole, and its own verdict speaks.
  if (healthy.length === 0) return d;
  hurt.sort(byWorst);
  const undecided = services.filter((s) => s.degraded && !hurt.some((h) => h.name === s.name)).map((s) => s.name);
  const led = !keyHurts(d);
  const service: ServiceLead = { lead: hurt[0]!, also: hurt.slice(1), healthy, undecided, led };
  return led ? { ...hurt[0]!.decision, service } : { ...d, service };
}
