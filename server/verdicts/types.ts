/**
 * The verdict vocabulary and the figures the read API shows are defined once, as the
 * schemas of the read API (`server/schemas/verdicts.ts`); these are their static types.
 */
export { VERDICTS, HINTS } from '../schemas/verdicts.ts';
export type {
  Verdict, Hint, ClientFigures, ProbeStatus, ProbeFigures, ProbePower, Alternative, VerdictEntry, KeyState,
} from '../schemas/verdicts.ts';
export type { Percentiles } from '../schemas/common.ts';

/** A part of the fleet (a service or an instance) judged on its own, for the `local` hint. */
export interface PartHealth {
  name: string;
  calls: number;
  degraded: boolean;
}
