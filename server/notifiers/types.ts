import type { Config } from '../config/schema.ts';
import type { AlertView } from '../alerts/types.ts';

/** One configured notifier (config `notifiers[]`). */
export type NotifierConfig = Config['notifiers'][number];

/** What a notification is about. */
export type NotificationEvent = 'firing' | 'repeat' | 'resolved';

/** One notification to deliver: an alert, the event, and when the evaluation asked for it. */
export interface NotificationJob {
  alert: AlertView;
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
