/**
 * The drill runs' writes and reads: start (the command stored, then sent by every
 * collector's feed), stop, the views, and the judge's pass over runs that ended.
 */
import { randomUUID } from 'node:crypto';
import { DRILL_KINDS, cleanKey, type BreakerKey, type DrillCommand, type DrillKind } from '@breakerbox/protocol';
import type { Config } from '../config/schema.ts';
import type { DrillRunRecord, DrillsPart } from '../storage/storage.ts';
import type { DrillReport, DrillResult, DrillRunView } from '../schemas/drills.ts';
import { drillSteps, drilledKeys, trafficBySteps } from './drill-traffic.ts';
import { judgeStep, runOutcome } from './judge.ts';
import { compareRuns } from './compare.ts';

/** What starting a run takes. */
export interface StartDrill {
  service: string;
  kinds?: DrillKind[];
  keys?: BreakerKey[];
  stepMs: number;
  by: string | null;
}

/** The wire command of a run at `now`: a stopped run's is a stop (`step_ms: 0`). */
export function commandOf(r: DrillRunRecord): DrillCommand {
  return {
    id: r.id,
    service: r.service,
    kinds: r.kinds,
    ...(r.keys ? { keys: r.keys } : {}),
    step_ms: r.stoppedAt === null ? r.stepMs : 0,
    issued_at: r.stoppedAt ?? r.issuedAt,
  };
}

/** A run as the API shows it. */
export function runView(r: DrillRunRecord, now: number): DrillRunView {
  const status = r.report !== null ? 'done' : r.endsAt > now ? 'running' : 'judging';
  return {
    id: r.id, service: r.service, kinds: r.kinds, keys: r.keys, step_ms: r.stepMs, issued_at: r.issuedAt, ends_at: r.endsAt,
    stopped_at: r.stoppedAt, stopped_by: r.stoppedBy, created_by: r.createdBy, status, report: (r.report as DrillReport | null) ?? null,
  };
}

/** The drills' logic over storage. */
export interface DrillService {
  start(s: StartDrill, now: number): Promise<DrillRunRecord>;
  /** Stops a running run; null when it is unknown, false when it had ended already. */
  stop(id: string, by: string | null, now: number): Promise<DrillRunRecord | null | false>;
  /** Judges every run that ended at least the grace ago and has no report; returns the reports written. */
  judgeDue(now: number): Promise<{ id: string; report: DrillReport }[]>;
  /** Judges one run now from what it received (whether or not it has ended). */
  judge(run: DrillRunRecord, now: number): Promise<DrillReport>;
  /**
   * Ends and judges at once every running run that no collector sent to any feed while it was
   * fresh (`freshMs` after its issue, the only time a feed is sent it) and that received no
   * drill batch: no instance can run it any more, so it is not waited out. Returns the reports.
   */
  endUnreached(now: number, freshMs: number): Promise<{ id: string; report: DrillReport }[]>;
}

/** Who `stopped_by` names on a run the collector ended because no instance received it. */
export const UNREACHED_BY = 'collector: no subscribed instance received the command';

/** Creates the service. */
export function createDrillService(store: DrillsPart, config: Pick<Config, 'verdicts' | 'alerts' | 'drills'>): DrillService {
  const graceMs = config.drills.grace_s * 1000;
  const judge = async (run: DrillRunRecord, now: number): Promise<DrillReport> => {
    const batches = await store.batches(run.id);
    const steps = drillSteps(run);
    const traffic = trafficBySteps(steps, drilledKeys(run, batches), batches);
    const drills: DrillResult[] = steps.map((s, i) => judgeStep(s, traffic[i]!, config));
    const previous = await store.previousJudged(run.service, run.issuedAt);
    const prevReport = previous?.report as DrillReport | null | undefined;
    return {
      outcome: runOutcome(drills),
      judged_at: now,
      batches: batches.length,
      instances: [...new Set(batches.map((b) => b.instance))].sort(),
      drills,
      comparison: previous && prevReport ? compareRuns(drills, { id: previous.id, issuedAt: previous.issuedAt, drills: prevReport.drills }) : null,
    };
  };
  return {
    async start(s, now) {
      const kinds = s.kinds ? DRILL_KINDS.filter((k) => s.kinds!.includes(k)) : [...DRILL_KINDS];
      // The command's order is the protocol's, whatever order they were asked in: reports of one service line up.
      const run: DrillRunRecord = {
        id: randomUUID(), service: s.service, kinds, keys: s.keys ? s.keys.map(cleanKey) : null, stepMs: s.stepMs,
        issuedAt: now, endsAt: now + kinds.length * s.stepMs, stoppedAt: null, stoppedBy: null, createdBy: s.by,
        updatedAt: now, report: null, judgedAt: null,
      };
      await store.insertRun(run);
      return run;
    },
    async stop(id, by, now) {
      const run = await store.getRun(id);
      if (!run) return null;
      if (!(await store.stopRun(id, now, by))) return false;
      return (await store.getRun(id))!;
    },
    async judgeDue(now) {
      const out: { id: string; report: DrillReport }[] = [];
      for (const run of await store.unjudged(now - graceMs)) {
        const report = await judge(run, now);
        if (await store.saveReport(run.id, report, now)) out.push({ id: run.id, report });
      }
      return out;
    },
    judge,
    async endUnreached(now, freshMs) {
      const out: { id: string; report: DrillReport }[] = [];
      for (const run of await store.running(now)) {
        if (run.stoppedAt !== null || run.issuedAt + freshMs > now) continue;
        if ((await store.delivered(run.id)) > 0 || (await store.batches(run.id)).length > 0) continue;
        if (!(await store.stopRun(run.id, now, UNREACHED_BY))) continue;
        const stopped = (await store.getRun(run.id))!;
        const report = await judge(stopped, now);
        if (await store.saveReport(run.id, report, now)) out.push({ id: run.id, report });
      }
      return out;
    },
  };
}
