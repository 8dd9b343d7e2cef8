/**
 * The data onset of an alert condition (docs/alerts.md, "for_s on the data's timeline"):
 * when the stored data shows the condition began, so `for_s` is measured on the data, not
 * on the passes that happened to look at it. Computed from per-minute sums, as a run of
 * minutes each meeting the rule's threshold on its own.
 */

const MINUTE = 60_000;

/** What one minute says about a condition: it held, it did not, or the minute has no data. */
export type MinuteHolds = boolean | null;

/** The minutes a rule reads for an onset over its window: `[first, now]` by minute start, one more than the window so a run reaching it is credited whole. */
export function onsetSpan(now: number, windowS: number): { first: number; end: number } {
  const from = now - windowS * 1000;
  return { first: from - (from % MINUTE) - MINUTE, end: now };
}

/**
 * The onset of the run of minutes, ending with the newest minute with data, in which the
 * condition held in every minute: the END of the run's first minute (that minute's sums say
 * the condition held in it, not since when in it — crediting it whole would let a blip late
 * in a minute count as a minute), never earlier than the rule's window (`now - windowS`),
 * never later than `now`. Minutes without data at the head (windows not arrived yet) are
 * skipped; one inside the run ends it. Undefined when the newest minute with data did not
 * hold (or no minute has data): the condition rests on the window alone, timed from the pass.
 *
 * So `now - onset ≥ for_s` means every minute of the last `for_s` seconds (the current one
 * as far as it reached) met the threshold on its own: a condition the data shows holding for
 * 5 minutes fires at once, one that began 20 s ago — or a blip inside one minute — does not.
 *
 * `skipGaps`: minutes without data inside the run are passed over instead of ending it, for
 * conditions on sparse data where a quiet minute says nothing either way (`serving_degraded`:
 * an operation with a task every few minutes is served degraded across the minutes between).
 */
export function runOnset(holds: (minute: number) => MinuteHolds, now: number, windowS: number, skipGaps = false): number | undefined {
  const { first } = onsetSpan(now, windowS);
  let m = now - (now % MINUTE);
  while (m >= first && holds(m) === null) m -= MINUTE;
  if (m < first || holds(m) !== true) return undefined;
  for (let back = m - MINUTE; back >= first; back -= MINUTE) {
    const h = holds(back);
    if (h === true) m = back;
    else if (h === false || !skipGaps) break;
  }
  return Math.min(now, Math.max(m + MINUTE, now - windowS * 1000));
}
