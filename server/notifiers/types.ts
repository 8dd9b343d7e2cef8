import type { Config } from '../config/schema.ts';
import type { AlertView } from '../alerts/types.ts';
import type { Incident } from '../verdicts/incidents.ts';
import type { NotificationEvent } from '../storage/parts/notifications.ts';
import type { PageSample } from '../alerts/page-samples.ts';

/** One configured notifier (config `notifiers[]`). */
export type NotifierConfig = Config['notifiers'][number];

/** Defined by storage, which records it per delivery; re-exported for the notifier pipeline. */
export type { NotificationEvent };

/**
 * The alerts one notification carries: an incident's (Alertmanager's group_by, done here),
 * or one alert of its own. Alertmanager notifiers get one alert per request and group
 * themselves, by the `incident` label.
 */
export interface NotificationGroup {
  /** The incident id, or the alert's fingerprint when it is in no incident. */
  key: string;
  /** "openai: 7 models, provider outage", or the lead alert's rule and target. */
  title: string;
  incident: Incident | null;
  /** Firing alerts (for `resolved`: the alerts that resolved), lead first. */
  alerts: AlertView[];
  /** What the group looked like when sent: a change of it is an `update`. */
  digest: string;
  /** True for a one-alert delivery whose state is kept per alert (Alertmanager). */
  perAlert: boolean;
  /** The latest few failed calls of the group's keys with their provider request ids (not part of the digest). */
  samples: PageSample[];
}

/** One notification to deliver: its group, the lead alert, the event, and when the evaluation asked for it. */
export interface NotificationJob {
  /** The group's lead alert (most severe, then earliest): what single-alert fields describe. */
  alert: AlertView;
  group: NotificationGroup;
  event: NotificationEvent;
  /** The evaluation time that queued it (the notify state is recorded with this time). */
  at: number;
}

/** An HTTP request a payload builder produces. */
export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Builds the request for one notifier type. */
export type PayloadBuilder = (notifier: NotifierConfig, job: NotificationJob, context: { externalUrl: string; sentAt: number }) => OutgoingRequest;
