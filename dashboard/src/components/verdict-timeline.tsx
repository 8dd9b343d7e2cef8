import type { Hint, SeriesPoint, Verdict } from '../api/types.ts';
import { HINT_WORDS, VERDICT_LOOK } from '../format.ts';
import { formatDateTime, formatTime } from '../time-range.ts';
import type { ReactNode } from 'react';

interface Run {
  verdict: Verdict;
  hint: Hint | null;
  from: number;
  to: number;
}

/** Consecutive buckets with the same verdict and hint, merged into runs. */
export function verdictRuns(series: SeriesPoint[], stepMs: number, end: number): Run[] {
  const runs: Run[] = [];
  for (const point of series) {
    const last = runs[runs.length - 1];
    const to = Math.min(point.t + stepMs, end);
    if (last && last.verdict === point.verdict && last.hint === point.hint) last.to = to;
    else runs.push({ verdict: point.verdict, hint: point.hint, from: point.t, to });
  }
  return runs;
}

/**
 * The verdict over time: a strip of runs on the charts' time axis (icon per run, so it
 * reads without colour), and the same runs as sentences, newest first. `marks`: events drawn on
 * the same axis (served-model changes).
 */
export function VerdictTimeline({ series, stepMs, window, marks }: { series: SeriesPoint[]; stepMs: number; window: { from: number; to: number }; marks?: ReactNode }) {
  const runs = verdictRuns(series, stepMs, window.to);
  if (runs.length === 0) return null;
  const span = window.to - window.from || 1;
  const fmt = span > 86_400_000 ? formatDateTime : formatTime;
  return (
    <section className="verdict-timeline" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Verdict over time</h2>
      <div className="timeline-box" aria-hidden="true">
      <div className="timeline-strip">
        {runs.map((run) => (
          <span
            key={run.from}
            className={`timeline-run verdict-${run.verdict}`}
            style={{ left: `${((run.from - window.from) / span) * 100}%`, width: `${((run.to - run.from) / span) * 100}%` }}
            title={`${VERDICT_LOOK[run.verdict].word}${run.hint ? ` (${HINT_WORDS[run.hint]})` : ''}: ${fmt(run.from)} – ${fmt(run.to)}`}
          >
            {VERDICT_LOOK[run.verdict].icon}
          </span>
        ))}
        {marks}
      </div>
      </div>
      <ol className="timeline-list" reversed>
        {[...runs].reverse().slice(0, 12).map((run) => (
          <li key={run.from}>
            {fmt(run.from)} – {fmt(run.to)}: <span aria-hidden="true">{VERDICT_LOOK[run.verdict].icon}</span> {VERDICT_LOOK[run.verdict].word}
            {run.hint ? ` (${HINT_WORDS[run.hint]})` : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}
