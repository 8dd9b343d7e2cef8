import { list, pct } from '../verdicts/evidence.ts';
import type { KeyAnalysis } from '../verdicts/analyse.ts';
import { probeSide } from '../verdicts/rules.ts';

/** "15 min", "1 h", "90 s". */
export function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

export { pct };

const locations = (n: number) => `${n} location${n === 1 ? '' : 's'}`;

/**
 * The verdict half of an alert summary: what the probes say and what that makes it,
 * e.g. "probes fine from 2 locations: likely self-inflicted (retry_storm)".
 */
export function verdictPhrase(a: KeyAnalysis | undefined): string {
  if (!a) return 'no recent data for a verdict';
  const side = probeSide(a.probes);
  const hint = a.decision.hint ? ` (${a.decision.hint})` : '';
  switch (a.decision.verdict) {
    case 'provider_outage':
      return side.ok.length
        ? `probes failing from ${list(side.failing)}, fine from ${list(side.ok)}: likely provider outage${hint}`
        : `probes failing from ${locations(side.failing.length)}: likely provider outage${hint}`;
    case 'self_inflicted':
      return `probes fine from ${locations(side.ok.length)}: likely self-inflicted${hint}`;
    case 'provider_degraded':
      return `clients fine, probes failing from ${list(side.failing)}: provider degraded${hint}`;
    case 'healthy':
      return `clients and probes healthy now${hint}`;
    default:
      return `verdict: insufficient data${hint}`;
  }
}
