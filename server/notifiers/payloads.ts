import type { AlertView } from '../alerts/types.ts';
import type { NotificationJob, NotifierConfig, OutgoingRequest, PayloadBuilder } from './types.ts';
import { sampleLine } from '../alerts/page-samples.ts';

/** PagerDuty Events API v2 endpoint, used when a pagerduty notifier sets no url. */
export const PAGERDUTY_URL = 'https://events.pagerduty.com/v2/enqueue';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** "together/chat/meta-llama/Llama-3.3-70B-Instruct-Turbo@us-east", or the operation. */
export function targetOf(a: AlertView): string {
  if (a.key) return `${a.key.provider}/${a.key.endpoint}/${a.key.model}${a.key.region ? ` (${a.key.region})` : ''}${a.location ? ` from ${a.location}` : ''}`;
  return a.operation ? `operation ${a.operation}` : 'breakerbox';
}

/** A link to the alert in the dashboard. */
export const alertLink = (externalUrl: string, a: AlertView) => `${externalUrl.replace(/\/$/, '')}/alerts?fingerprint=${a.fingerprint}`;

const request = (n: NotifierConfig, url: string, body: unknown): OutgoingRequest => ({
  url,
  headers: { ...JSON_HEADERS, ...(n.headers ?? {}) },
  body: JSON.stringify(body),
});

/** The incident as a notification carries it: no per-key evidence beyond its own. */
const incidentOf = (job: NotificationJob) => {
  const i = job.group.incident;
  return i ? { id: i.id, title: i.title, cause: i.cause, verdict: i.verdict, hint: i.hint, keys: i.keys, evidence: i.evidence } : null;
};

/** A link to the group's incident (or its one alert) in the dashboard. */
const groupLink = (externalUrl: string, job: NotificationJob) =>
  job.group.incident ? `${externalUrl.replace(/\/$/, '')}/?incident=${job.group.incident.id}` : alertLink(externalUrl, job.alert);

/**
 * Generic JSON webhook: one request per group — `alert` is its lead alert exactly as
 * `GET /api/alerts` shows it, `group` every alert it carries and the incident.
 */
export const webhookPayload: PayloadBuilder = (n, job, ctx) =>
  request(n, n.url!, {
    version: '1', source: 'breakerbox', event: job.event, alert: job.alert,
    group: { key: job.group.key, title: job.group.title, incident: incidentOf(job), alerts: job.group.alerts },
    samples: job.group.samples,
    link: groupLink(ctx.externalUrl, job), sent_at: ctx.sentAt,
  });

const TAGS: Record<NotificationJob['event'], string> = { firing: 'FIRING', update: 'UPDATE', repeat: 'FIRING', resolved: 'RESOLVED' };

/** Slack-compatible incoming webhook: `text` (read by Slack, Mattermost, Rocket.Chat) plus Slack blocks; one message per group. */
export const slackPayload: PayloadBuilder = (n, job, ctx) => {
  const a = job.alert;
  const tag = TAGS[job.event];
  const alerts = job.group.alerts;
  const lines = alerts.slice(0, 10).map((x) => `• ${x.rule} — ${targetOf(x)}: ${x.summary}`);
  if (alerts.length > 10) lines.push(`• … and ${alerts.length - 10} more`);
  if (job.group.samples.length > 0) lines.push(`Failed calls: ${job.group.samples.map(sampleLine).join('; ')}`);
  const text = alerts.length === 1 && !job.group.incident
    ? `[${tag}] ${a.severity} ${a.rule} — ${targetOf(a)}: ${a.summary}`
    : `[${tag}] ${a.severity} ${job.group.title} — ${alerts.length} alert${alerts.length === 1 ? '' : 's'}\n${lines.join('\n')}`;
  return request(n, n.url!, {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*[${tag}] ${job.group.title}* (${a.severity})\n${lines.join('\n')}` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `<${groupLink(ctx.externalUrl, job)}|open in breakerbox> · group ${job.group.key}` }] },
    ],
  });
};

/**
 * PagerDuty Events v2: `trigger` (re-sent on updates and while firing, deduplicated) and
 * `resolve`, keyed by the group: one PagerDuty incident per breakerbox incident.
 */
export const pagerdutyPayload: PayloadBuilder = (n, job, ctx) => {
  const a = job.alert;
  const url = n.url ?? PAGERDUTY_URL;
  const dedupKey = job.group.key;
  if (job.event === 'resolved') return request(n, url, { routing_key: n.routing_key, event_action: 'resolve', dedup_key: dedupKey });
  const grouped = job.group.incident !== null || job.group.alerts.length > 1;
  return request(n, url, {
    routing_key: n.routing_key,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: (grouped ? `${job.group.title}: ${job.group.alerts.length} alert(s); ${targetOf(a)}: ${a.summary}` : `${targetOf(a)}: ${a.summary}`).slice(0, 1024),
      source: a.key ? `${a.key.provider}/${a.key.endpoint}/${a.key.model}` : `operation/${a.operation}`,
      severity: a.severity,
      timestamp: new Date(a.fired_at ?? a.started_at).toISOString(),
      component: a.key?.model,
      group: a.rule,
      class: a.verdict ?? undefined,
      custom_details: {
        rule: a.rule, key: a.key, location: a.location, operation: a.operation, value: a.value, verdict: a.verdict, hint: a.hint,
        incident: incidentOf(job), alerts: job.group.alerts.map((x) => ({ rule: x.rule, target: targetOf(x), summary: x.summary })),
        samples: job.group.samples.map(sampleLine),
      },
    },
    client: 'breakerbox',
    client_url: groupLink(ctx.externalUrl, job),
    links: [{ href: groupLink(ctx.externalUrl, job), text: job.group.incident ? 'breakerbox incident' : 'breakerbox alert' }],
  });
};

/** Prometheus label names: [a-zA-Z_][a-zA-Z0-9_]*; values any string. */
function labelsOf(a: AlertView, incident: string): Record<string, string> {
  // `incident` is what an Alertmanager route groups by (`group_by: [incident]`): one page per incident.
  const labels: Record<string, string> = { alertname: `breakerbox_${a.rule}`, rule: a.rule, severity: a.severity, fingerprint: a.fingerprint, incident };
  if (a.key) {
    labels.provider = a.key.provider;
    labels.endpoint = a.key.endpoint;
    labels.model = a.key.model;
    if (a.key.region) labels.region = a.key.region;
  }
  if (a.location) labels.location = a.location;
  if (a.operation) labels.operation = a.operation;
  return labels;
}

/** How long Alertmanager should keep a firing alert without hearing from us again. */
export const ALERTMANAGER_HOLD_MS = 5 * 60_000;

/** Prometheus Alertmanager v2 `POST /api/v2/alerts`: one postable alert, re-sent while firing. */
export const alertmanagerPayload: PayloadBuilder = (n, job, ctx) => {
  const a = job.alert;
  const base = n.url!.replace(/\/$/, '');
  const url = base.endsWith('/api/v2/alerts') ? base : `${base}/api/v2/alerts`;
  // While firing, endsAt is a lease from the moment of sending: re-sent before it runs out.
  const endsAt = job.event === 'resolved' ? (a.resolved_at ?? ctx.sentAt) : ctx.sentAt + ALERTMANAGER_HOLD_MS;
  const annotations: Record<string, string> = { summary: a.summary, incident: job.group.title };
  if (a.verdict) annotations.verdict = a.verdict;
  if (a.hint) annotations.hint = a.hint;
  if (a.value !== null) annotations.value = String(a.value);
  if (job.group.samples.length > 0) annotations.samples = job.group.samples.map(sampleLine).join('\n');
  return request(n, url, [
    {
      labels: labelsOf(a, job.group.key),
      annotations,
      startsAt: new Date(a.fired_at ?? a.started_at).toISOString(),
      endsAt: new Date(endsAt).toISOString(),
      generatorURL: alertLink(ctx.externalUrl, a),
    },
  ]);
};

/** The builder per notifier type. */
export const PAYLOADS: Record<NotifierConfig['type'], PayloadBuilder> = {
  webhook: webhookPayload,
  slack: slackPayload,
  pagerduty: pagerdutyPayload,
  alertmanager: alertmanagerPayload,
};

export type { NotificationJob };
