import type { KeyDetailReply } from '../api/types.ts';
import { formatDateTime } from '../time-range.ts';

type Change = KeyDetailReply['served_changes'][number];
type Version = Change['from'];

/** "gpt-4o-2024-08-06 (fp_a)"; "unknown" when no probe named either field yet. */
export const versionText = (v: Version): string =>
  [v.model_served, v.system_fingerprint !== null ? `(${v.system_fingerprint})` : null].filter((x) => x !== null).join(' ') || 'unknown';

/** What the tooltip and the list say of one change. */
export const changeText = (c: Change): string => `${formatDateTime(c.ts)}: served model ${versionText(c.from)} → ${versionText(c.to)} (${c.seen_in} from ${c.by})`;

/** Marks on the verdict strip's time axis, one per served-model change (the list below says the same in words). */
export function ServedChangeMarks({ changes, window }: { changes: Change[]; window: { from: number; to: number } }) {
  const span = window.to - window.from || 1;
  return (
    <>
      {changes.map((c) => (
        <span key={`${c.ts}-${c.by}`} className="timeline-swap" style={{ left: `${((c.ts - window.from) / span) * 100}%` }} title={changeText(c)} />
      ))}
    </>
  );
}

/** The model swapped behind the key's name (issue 39): every change of the served version in the window, newest first. */
export function ServedChanges({ changes }: { changes: Change[] }) {
  if (changes.length === 0) return null;
  return (
    <section aria-labelledby="served-changes-title">
      <h2 id="served-changes-title">Served model changes <span className="muted">(newest first)</span></h2>
      <ol className="served-changes" data-testid="served-changes">
        {[...changes].reverse().map((c) => <li key={`${c.ts}-${c.by}`}>{changeText(c)}</li>)}
      </ol>
    </section>
  );
}
