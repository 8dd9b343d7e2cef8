/**
 * The read API's answers as the dashboard reads them. Every type here is the `Static` of a
 * schema the collector validates and serialises its replies with (`server/schemas/`, the
 * contract, described in docs/api.md), imported as types only: nothing of the server reaches
 * the bundle, and a field changed on the server fails the dashboard's type check.
 */
import type { Static } from '@sinclair/typebox';
import type * as S from '../../../server/schemas/index.ts';

export type { BreakerKey } from '@breakerbox/protocol';
export type {
  AlertState,
  ClientFigures,
  Delivery,
  FallbackHealth,
  Hint,
  Incident,
  IncidentsReply,
  KeyState,
  LocationHealth,
  Percentiles,
  ProbeFigures,
  ProbeResult,
  ProbeStatus,
  SamplesReply,
  SeriesPoint,
  SessionInfo,
  Silence,
  TimeRange as Window,
  Verdict,
  VerdictEntry,
  VerdictsReply,
  KeysReply,
  ProbePoint,
  TransitionRecord,
} from '../../../server/schemas/index.ts';

/** An alert as `GET /api/alerts` lists it. */
export type Alert = S.AlertView;
/** One entry of `GET /api/keys`. */
export type KeyEntry = S.KeyListEntry;
/** Requests one service forwarded unprotected to a host and path family (`passthrough` of `GET /api/keys`). */
export type PassthroughEntry = S.PassthroughEntry;
/** The answer of `GET /api/key`. */
export type KeyDetailReply = S.KeyDetail;
/** The answer of `GET /api/cost`, and one operation of it. */
export type CostReply = S.CostView;
export type CostOperation = S.OperationCost;
/** The answer of `GET /api/lifecycle`, and one model of it. */
export type LifecycleReply = S.LifecycleView;
export type LifecycleModel = S.ModelInUse;
/** One page of `GET /api/probes`. */
export type ProbesReply = S.ProbesPage;
/** A matcher as the silence form sends it (`POST /api/silences`). */
export type Matcher = S.SilenceInput['matchers'][number];
/** The body of `POST /api/silences`. */
export type SilenceInput = Static<typeof S.SilenceBody>;
/** `GET /api/shadow`, one pair of it and one side of a pair. */
export type ShadowReply = S.ShadowView;
export type ShadowPair = S.ShadowPairView;
export type ShadowSideFigures = S.ShadowSideView;
/** `GET /api/fleet`, and one fleet decision as the API shows it. */
export type FleetListReply = Static<typeof S.FleetListReply>;
export type FleetDecisionView = Static<typeof S.FleetDecisionView>;
/** A failure drill run, its report and one drill of it (docs/drills.md). */
export type DrillRunView = S.DrillRunView;
export type DrillReport = S.DrillReport;
export type DrillResult = S.DrillResult;
export type DrillKindName = S.DrillKindName;
/** The body of `POST /api/drills`. */
export type StartDrillBody = S.StartDrillBody;
