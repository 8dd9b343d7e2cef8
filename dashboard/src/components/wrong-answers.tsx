import type { KeyDetailReply } from '../api/types.ts';
import { formatDateTime, formatTime } from '../time-range.ts';

type ProbePoint = KeyDetailReply['probe_series'][string][number];

/** One bucket of the key's probe series in which some location's canary answered wrongly. */
export interface WrongAnswerBucket {
  t: number;
  /** Per location that had wrong answers in the bucket, sorted by location. */
  locations: { location: string; wrong: number; probes: number }[];
}

/**
 * The buckets of the key's probe series holding wrong answers (issue 39: answered well-formed
 * but missed the canary), all locations of a bucket together, oldest first.
 */
export function wrongAnswerBuckets(probeSeries: Record<string, ProbePoint[]>): WrongAnswerBucket[] {
  const byT = new Map<number, WrongAnswerBucket>();
  for (const location of Object.keys(probeSeries).sort()) {
    for (const point of probeSeries[location] ?? []) {
      if (point.wrong_answer <= 0) continue;
      const bucket = byT.get(point.t) ?? { t: point.t, locations: [] };
      bucket.locations.push({ location, wrong: point.wrong_answer, probes: point.probes });
      byT.set(point.t, bucket);
    }
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

/** What the tooltip and the list say of one bucket: "14:02–14:03: canary answered wrongly 3 of 4 probes from eu-west". */
export function wrongAnswerText(b: WrongAnswerBucket, stepMs: number, long: boolean): string {
  const fmt = long ? formatDateTime : formatTime;
  const parts = b.locations.map((l) => `${l.wrong} of ${l.probes} probes from ${l.location}`);
  return `${fmt(b.t)} – ${fmt(b.t + stepMs)}: canary answered wrongly ${parts.join(', ')}`;
}

/**
 * Marks on the verdict strip's time axis, one per bucket with wrong answers, as wide as the
 * bucket (so a run of wrong answers reads as a bar, one odd answer as a sliver); the tooltip
 * and the list below say how many of how many probes, per location.
 */
export function WrongAnswerMarks({ buckets, stepMs, window }: { buckets: WrongAnswerBucket[]; stepMs: number; window: { from: number; to: number } }) {
  const span = window.to - window.from || 1;
  return (
    <>
      {buckets.map((b) => {
        const wrong = b.locations.reduce((n, l) => n + l.wrong, 0);
        const width = (Math.min(b.t + stepMs, window.to) - b.t) / span;
        return (
          <span
            key={b.t}
            className="timeline-wrong"
            data-wrong={wrong}
            style={{ left: `${((b.t - window.from) / span) * 100}%`, width: `${width * 100}%` }}
            title={wrongAnswerText(b, stepMs, span > 86_400_000)}
          />
        );
      })}
    </>
  );
}

/** The same buckets in words, newest first (the strip is hidden from screen readers). */
export function WrongAnswers({ buckets, stepMs, window }: { buckets: WrongAnswerBucket[]; stepMs: number; window: { from: number; to: number } }) {
  if (buckets.length === 0) return null;
  const long = window.to - window.from > 86_400_000;
  return (
    <section aria-labelledby="wrong-answers-title">
      <h2 id="wrong-answers-title">Canary wrong answers <span className="muted">(newest first)</span></h2>
      <ol className="wrong-answers" data-testid="wrong-answers">
        {[...buckets].reverse().slice(0, 12).map((b) => <li key={b.t}>{wrongAnswerText(b, stepMs, long)}</li>)}
      </ol>
    </section>
  );
}
