/**
 * What the verdict rules keep of the answer canaries (issue 39): the shapes a `Decision`
 * carries, apart from the rule that judges them (wrong-answers.ts), so the rules and the
 * judgement import them without importing each other.
 */
import type { AnswerRow } from '../storage/storage.ts';

/** One location's canaries over the rule's lookback. */
export interface LocationAnswers extends AnswerRow {
  /** Whether it answers wrongly by the volume rule. */
  wrongly: boolean;
}

/** The key's answer canaries over the lookback, judged. */
export interface AnswerSide {
  lookback_s: number;
  /** Every usable location that probed the key in the lookback, by name. */
  locations: LocationAnswers[];
  /** The locations answering wrongly. */
  wrong: string[];
  /** Locations needed: `wrong_answer_min_locations` capped at the locations that probed. */
  needed: number;
  /** True when the canaries are wrong (`wrong.length >= needed`, at least one). */
  wrongly: boolean;
}

/** What a decision made of the answers: with `wrong_answers`, or self_inflicted on invalid_output with the canaries not wrong. */
export interface AnswerJudgement {
  side: AnswerSide;
  /** Services whose calls failed `invalid_output` in the window, with how many. */
  invalid: { name: string; count: number }[];
}
