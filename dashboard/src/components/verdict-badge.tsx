import type { Hint, ProbeStatus, Verdict } from '../api/types.ts';
import { HINT_WORDS, VERDICT_LOOK } from '../format.ts';

/** A verdict as icon + word (+ hint), never colour alone; the colour only repeats it. */
export function VerdictBadge({ verdict, hint, large }: { verdict: Verdict; hint?: Hint | null; large?: boolean }) {
  const look = VERDICT_LOOK[verdict];
  return (
    <span className={`verdict verdict-${verdict}${large ? ' verdict-large' : ''}`} data-verdict={verdict} title={look.advice}>
      <span className="verdict-icon" aria-hidden="true">{look.icon}</span>
      <span className="verdict-word">{look.word}</span>
      {hint ? <span className="verdict-hint">: {HINT_WORDS[hint] ?? hint}</span> : null}
    </span>
  );
}

const PROBE_LOOK: Record<ProbeStatus, { icon: string; word: string }> = {
  ok: { icon: '✔', word: 'ok' },
  failing: { icon: '✖', word: 'failing' },
  misconfigured: { icon: '⚙', word: 'misconfigured' },
  insufficient: { icon: '…', word: 'too few' },
};

/** One probe location's status, e.g. "✖ eu-west failing"; "set aside" when the location is an unhealthy prober. */
export function ProbeStatusBadge({ location, status, setAside }: { location?: string; status: ProbeStatus; setAside?: boolean }) {
  const look = PROBE_LOOK[status] ?? { icon: '?', word: status };
  return (
    <span className={`probe-status probe-${status}${setAside ? ' probe-set-aside' : ''}`} data-probe-status={status} data-set-aside={setAside ? 'true' : undefined}>
      <span aria-hidden="true">{look.icon}</span> {location ? `${location} ` : ''}{look.word}{setAside ? ' (set aside: unhealthy prober)' : ''}
    </span>
  );
}

/** The breaker state across instances, e.g. "open on 2 of 5". */
export function StateBadge({ summary, text }: { summary: string; text: string }) {
  // Circuit symbols: open is a broken ring, closed a full disc.
  const icon = summary === 'open' ? '⊘' : summary === 'half_open' ? '◑' : summary === 'closed' ? '●' : '○';
  return (
    <span className={`state state-${summary}`} data-state={summary}>
      <span aria-hidden="true">{icon}</span> {text}
    </span>
  );
}
