import type { KeyDetailReply } from '../api/types.ts';
import { formatDateTime, formatTime } from '../time-range.ts';

type ProbePoint = KeyDetailReply['probe_series'][string][number];

/** A run of consecutive probe-series buckets in which some location's canary answered wrongly. */
export interface WrongAnswerRun {
  from: number;
  to: number;
  /** Per location that had wrong answers in the run, sorted by location: its wrong answers and its probes in the buckets where it answered wrongly. */
  locations: { location: string; wrong: number; probes: number }[];
}

/**
 * The runs of wrong answers in the key's probe series (issue 39: answered well-formed but missed
 * the canary), oldest first: buckets holding any are merged with their neighbours when one
 * follows the other, over all locations, so a broken canary reads as one run, not one line a minute.
 */
export function wrongAnswerRuns(probeSeries: Record<string, ProbePoint[]>, stepMs: number): WrongAnswerRun[] {
  const byT = new Map<number, Map<string, { wrong: number; probes: number }>>();
  for (const location of Object.keys(probeSeries).sort()) {
    for (const point of probeSeries[location] ?? []) {
      if (point.wrong_answer <= 0) continue;
      const bucket = byT.get(point.t) ?? new Map();
      bucket.set(location, { wrong: point.wrong_answer, probes: point.probes });
      byT.set(point.t, bucket);
    }
  }
  const runs: { from: number; to: number; sums: Map<string, { wrong: number; probes: number }> }[] = [];
  for (const t of [...byT.keys()].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    const run = last && last.to === t ? last : { from: t, to: t, sums: new Map() };
    if (run !== last) runs.push(run);
    run.to = t + stepMs;
    for (const [location, n] of byT.get(t)!) {
      const sum = run.sums.get(location) ?? { wrong: 0, probes: 0 };
      sum.wrong += n.wrong;
      sum.probes += n.probes;
      run.sums.set(location, sum);
    }
  }
  return runs.map((r) => ({ from: r.from, to: r.to, locations: [...r.sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([location, n]) => ({ location, ...n })) }));
}

/** What the tooltip and the list say of one run: "14:02 – 14:07: canary answered wrongly 5 of 5 probes from eu-west". */
export function wrongAnswerText(r: WrongAnswerRun, long: boolean): string {
  const fmt = long ? formatDateTime : formatTime;
  const parts = r.locations.map((l) => `${l.wrong} of ${l.probes} probes from ${l.location}`);
  return `${fmt(r.from)} – ${fmt(r.to)}: canary answered wrongly ${parts.join(', ')}`;
}

/**
 * Marks on the verdict strip's time axis, one per run of wrong answers, as wide as the run
 * (a broken canary reads as a bar, one odd answer as a sliver); the tooltip and the list
 * below say how many of how many probes, per location.
 */
export function WrongAnswerMarks({ runs, window }: { runs: WrongAnswerRun[]; window: { from: number; to: number } }) {
  const span = window.to - window.from || 1;
  return (
    <>
      {runs.map((r) => (
        <span
          key={r.from}
          className="timeline-wrong"
          data-wrong={r.locations.reduce((n, l) => n + l.wrong, 0)}
          style={{ left: `${((r.from - window.from) / span) * 100}%`, width: `${((Math.min(r.to, window.to) - r.from) / span) * 100}%` }}
          title={wrongAnswerText(r, span > 86_400_000)}
        />
      ))}
    </>
  );
}

/** The same runs in words, newest first (the strip is hidden from screen readers). */
export function WrongAnswers({ runs, window }: { runs: WrongAnswerRun[]; window: { from: number; to: number } }) {
  if (runs.length === 0) return null;
  const long = window.to - window.from > 86_400_000;
  return (
    <section aria-labelledby="wrong-answers-title">
      <h2 id="wrong-answers-title">Canary wrong answers <span className="muted">(newest first)</span></h2>
      <ol className="wrong-answers" data-testid="wrong-answers">
        {[...runs].reverse().slice(0, 12).map((r) => <li key={r.from}>{wrongAnswerText(r, long)}</li>)}
      </ol>
    </section>
  );
}
