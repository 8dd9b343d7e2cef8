import type { AlertView } from '../alerts/types.ts';
import type { NotificationJob, NotifierConfig, OutgoingRequest, PayloadBuilder } from './types.ts';

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

/** Generic JSON webhook: the alert exactly as `GET /api/alerts` shows it. */
export const webhookPayload: PayloadBuilder = (n, job, ctx) =>
  request(n, n.url!, { version: '1', source: 'breakerbox', event: job.event, alert: job.alert, link: alertLink(ctx.externalUrl, job.alert), sent_at: ctx.sentAt });

/** Slack-compatible incoming webhook: `text` (read by Slack, Mattermost, Rocket.Chat) plus Slack blocks. */
export const slackPayload: PayloadBuilder = (n, job, ctx) => {
  const a = job.alert;
  const tag = job.event === 'resolved' ? 'RESOLVED' : 'FIRING';
  const text = `[${tag}] ${a.severity} ${a.rule} — ${targetOf(a)}: ${a.summary}`;
  return request(n, n.url!, {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*[${tag}] ${a.rule}* (${a.severity}) — ${targetOf(a)}\n${a.summary}` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `<${alertLink(ctx.externalUrl, a)}|open in breakerbox> · fingerprint ${a.fingerprint}` }] },
    ],
  });
};

/** PagerDuty Events v2: `trigger` (re-sent while firing, deduplicated) and `resolve`, keyed by the fingerprint. */
export const pagerdutyPayload: PayloadBuilder = (n, job, ctx) => {
  const a = job.alert;
  const url = n.url ?? PAGERDUTY_URL;
  if (job.event === 'resolved') return request(n, url, { routing_key: n.routing_key, event_action: 'resolve', dedup_key: a.fingerprint });
  return request(n, url, {
    routing_key: n.routing_key,
    event_action: 'trigger',
    dedup_key: a.fingerprint,
    payload: {
      summary: `${targetOf(a)}: ${a.summary}`.slice(0, 1024),
      source: a.key ? `${a.key.provider}/${a.key.endpoint}/${a.key.model}` : `operation/${a.operation}`,
      severity: a.severity,
      timestamp: new Date(a.fired_at ?? a.started_at).toISOString(),
      component: a.key?.model,
      group: a.rule,
      class: a.verdict ?? undefined,
      custom_details: { rule: a.rule, key: a.key, location: a.location, operation: a.operation, value: a.value, verdict: a.verdict, hint: a.hint },
    },
    client: 'breakerbox',
    client_url: alertLink(ctx.externalUrl, a),
    links: [{ href: alertLink(ctx.externalUrl, a), text: 'breakerbox alert' }],
  });
};

/** Prometheus label names: [a-zA-Z_][a-zA-Z0-9_]*; values any string. */
function labelsOf(a: AlertView): Record<string, string> {
  const labels: Record<string, string> = { alertname: `breakerbox_${a.rule}`, rule: a.rule, severity: a.severity, fingerprint: a.fingerprint };
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
  const annotations: Record<string, string> = { summary: a.summary };
  if (a.verdict) annotations.verdict = a.verdict;
  if (a.hint) annotations.hint = a.hint;
  if (a.value !== null) annotations.value = String(a.value);
  return request(n, url, [
    {
      labels: labelsOf(a),
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
