import { useState } from 'react';

function Snippet({ title, text }: { title: string; text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <figure className="snippet">
      <figcaption>
        {title}
        <button
          type="button"
          className="link-button"
          onClick={() => {
            void navigator.clipboard?.writeText(text).then(() => setCopied(true), () => setCopied(false));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </figcaption>
      <pre tabIndex={0}><code>{text}</code></pre>
    </figure>
  );
}

/**
 * What the board shows before any telemetry arrived: how to point the SDK and a prober
 * at this server, with this server's own URL in every snippet.
 */
export function EmptyState({ origin }: { origin: string }) {
  const tokens = `# on the collector host: one ingest token per application or prober
npx breakerbox token create --name ticket-drafts --rights ingest
npx breakerbox token create --name prober-eu-west --rights ingest`;
  const sdk = `// in the application: every model call goes through breakerbox's fetch wrapper
import OpenAI from 'openai';
import { createBreakerbox } from '@breakerbox/sdk';

const bb = createBreakerbox({
  telemetry: { url: '${origin}', token: process.env.BREAKERBOX_TOKEN, service: 'ticket-drafts' },
});
// retries are decided by breakerbox, within its retry budget
const openai = new OpenAI({ maxRetries: 0, fetch: bb.fetch({ baseURL: 'https://api.openai.com/v1' }) });`;
  const probe = `# probe.yaml — run with: BREAKERBOX_TOKEN=… OPENAI_API_KEY=… npx breakerbox probe --config probe.yaml
location: eu-west
collector:
  url: ${origin}
  token_env: BREAKERBOX_TOKEN
targets:
  - key: { provider: openai, endpoint: chat, model: gpt-4o-mini }
    kind: openai-chat
    base_url: https://api.openai.com/v1
    api_key_env: OPENAI_API_KEY
    interval: 1m
    latency_ceiling_ms: 10000`;
  const curl = `# check the pipe end to end: one probe result, by hand
curl -sS ${origin}/v1/telemetry \\
  -H "Authorization: Bearer $BREAKERBOX_TOKEN" -H 'Content-Type: application/json' \\
  -d '{"batch_id":"hello-'$(date +%s)'","source":{"service":"manual","instance":"laptop"},
       "events":[{"type":"probe","ts":'$(date +%s000)',"location":"laptop","outcome":"ok",
       "key":{"provider":"openai","endpoint":"chat","model":"gpt-4o-mini"},"latency_ms":{"total":420}}]}'`;
  return (
    <section className="empty-state" aria-labelledby="empty-title" data-testid="empty-state">
      <h2 id="empty-title">No telemetry yet</h2>
      <p>
        This collector at <code>{origin}</code> has not received anything. Point your applications' SDK and at least one
        prober at it; keys appear here within a few seconds of their first report.
      </p>
      <ol className="steps">
        <li><Snippet title="1. Create ingest tokens" text={tokens} /></li>
        <li><Snippet title="2. Report from your application with the SDK" text={sdk} /></li>
        <li><Snippet title="3. Probe the providers from outside" text={probe} /></li>
        <li><Snippet title="4. Or send one event by hand" text={curl} /></li>
      </ol>
    </section>
  );
}
