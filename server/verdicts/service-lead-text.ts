/**
 * The sentences of a key whose worst service leads (service-lead.ts): the service, its
 * figures and verdict first, the other services after, the whole key's figures below them.
 */
import { CLIENT_CLASSES, PROVIDER_CLASSES } from '@breakerbox/protocol';
import type { HurtService, ServiceLead } from './service-lead.ts';
import { classList, list, num, pct } from './text.ts';

const plural = (n: number, word: string) => `${num(n)} ${word}${n === 1 ? '' : 's'}`;

/** "self_inflicted / client_errors". */
export const verdictLabel = (h: HurtService): string => `${h.decision.verdict}${h.decision.hint ? ` / ${h.decision.hint}` : ''}`;

/** "45% of 420 calls failed (policy 189)", with the slow, rejected and open shares that made it degraded. */
export function serviceFigures(h: HurtService): string {
  const f = h.figures;
  const parts: string[] = [];
  if (f.failed > 0) {
    const classes = classList(f.errors, [...PROVIDER_CLASSES, ...CLIENT_CLASSES]);
    parts.push(`${pct(f.error_share)} of ${plural(f.calls, 'call')} failed${classes ? ` (${classes})` : ''}`);
  } else parts.push(`${plural(f.calls, 'call')}, none failed`);
  if (f.slow > 0) parts.push(`${pct(f.slow_share)} slow`);
  if (f.rejected > 0) parts.push(`${pct(f.rejection_share)} of attempts rejected by the bulkhead`);
  if ((f.open_share ?? 0) > 0) parts.push(`breaker open ${pct(f.open_share)} of instance-time`);
  return parts.join(', ');
}

/** "2 other services healthy (search and summaries)", and the degraded ones no verdict could be given for. */
function othersText(s: ServiceLead): string {
  const out: string[] = [];
  if (s.healthy.length > 0) out.push(`${plural(s.healthy.length, `other service`)} healthy (${list(s.healthy.map((h) => h.name))})`);
  if (s.undecided.length > 0) out.push(`${list(s.undecided)} degraded too, cause undecided`);
  return out.join('; ');
}

/**
 * What on-call reads first: "marketing-copy: 45% of 420 calls failed (policy 189); 3 other
 * services healthy (a, b and c)"; another hurt service is named with its own verdict.
 */
export function leadText(s: ServiceLead): string {
  const also = s.also.map((h) => `also ${h.name} (${verdictLabel(h)}): ${serviceFigures(h)}`);
  return [`${s.lead.name}: ${serviceFigures(s.lead)}`, ...also, othersText(s)].filter((x) => x !== '').join('; ');
}

/**
 * The key's first evidence sentence when its worst service leads: that service's verdict,
 * its figures and the other services, then what the verdict means for that service
 * (`meaning`, the verdict sentence of its decision, which speaks of "clients").
 */
export function leadSentence(s: ServiceLead, verdict: string, meaning: string): string {
  return `${verdict}: ${leadText(s)} — ${meaning.replace(/^clients\b/, s.lead.name)}`;
}

/** The services line of a key judged on its own whose services are split: who is hurt, how, and who is fine. */
export function servicesSentence(s: ServiceLead): string {
  const hurt = [s.lead, ...s.also].map((h) => `${h.name} (${verdictLabel(h)}): ${serviceFigures(h)}`);
  return `services: ${[...hurt, othersText(s)].filter((x) => x !== '').join('; ')}`;
}
