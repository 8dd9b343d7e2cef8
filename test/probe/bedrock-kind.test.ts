/**
 * `bedrock-converse` against the shared fake provider, which recomputes every SigV4
 * signature with `@smithy/signature-v4`: a probe signed with the AWS credentials (region of
 * the target) is answered; a wrong secret is refused (`auth`); the cost cap is
 * `inferenceConfig.maxTokens`; `max_tokens`, `guardrail_intervened`, ThrottlingException and
 * ServiceUnavailableException are classified, streamed (ConverseStream frames) or not;
 * credentials come from the AWS environment or a profile and never appear in a log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeEvent } from '@breakerbox/protocol';
import { Prober } from '../../probe/prober.ts';
import { loadAwsCredentials, type AwsCredentials } from '../../probe/aws-credentials.ts';
import { validateConfig } from '../../probe/config-validate.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import type { Fault } from '../support/fake-provider-types.ts';
import { captureLogger, configOf, ManualScheduler, rawTarget } from './helpers.ts';

let fake: FakeProvider;
let seq = 0;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

const model = () => `anthropic.claude-3-5-haiku-20241022-v${++seq}:0`;

function target(m: string, request: Record<string, unknown> = {}) {
  return rawTarget(fake.bedrockBaseUrl, m, {
    kind: 'bedrock-converse',
    key: { provider: 'bedrock', endpoint: 'converse', model: m, region: 'us-west-2' },
    api_key_env: undefined,
    request,
    timeouts: { connect_ms: 1_000, first_byte_ms: 2_000, total_ms: 4_000 },
    price: { input_per_mtok: 0.8, output_per_mtok: 4 },
  });
}

async function probe(m: string, aws: AwsCredentials | undefined, request: Record<string, unknown> = {}): Promise<{ event: ProbeEvent; lines: string[] }> {
  const config = configOf({ targets: [target(m, request)] });
  const events: ProbeEvent[] = [];
  const { log, lines } = captureLogger();
  const prober = new Prober({ config, apiKeys: new Map(), aws, sink: (e) => events.push(e), logger: log, scheduler: new ManualScheduler() });
  expect((await prober.fire(m)).kind).toBe('probed');
  return { event: events[0]!, lines };
}

const creds = (): AwsCredentials => ({ ...fake.awsCredentials, source: 'environment' });

describe('bedrock-converse', () => {
  it('signs the probe with SigV4 for the target\'s region, capped by inferenceConfig.maxTokens, and reads the answer', async () => {
    const m = model();
    const { event } = await probe(m, creds());
    expect(event).toMatchObject({ outcome: 'ok', status: 200 });
    const a = fake.attemptsFor(m).at(-1)!;
    expect(a.path).toBe(`/model/${encodeURIComponent(m)}/converse`);
    expect(a.sigv4).toEqual({ accessKeyId: fake.awsCredentials.accessKeyId, region: 'us-west-2', service: 'bedrock' });
    expect(a.body).toMatchObject({ messages: [{ role: 'user', content: [{ text: expect.any(String) }] }], inferenceConfig: { maxTokens: 8 } });
    expect(event.cost_usd).toBeGreaterThan(0);
  });

  it('is refused as auth when the signature does not match (a wrong secret), and never logs the keys', async () => {
    const m = model();
    const wrong = { ...creds(), secretAccessKey: 'not/the/secret/at/all/000000000000000000' };
    const { event, lines } = await probe(m, wrong);
    expect(event).toMatchObject({ outcome: 'error', error_class: 'auth', status: 403 });
    expect(lines.join('\n')).not.toContain(wrong.secretAccessKey);
  });

  it('fails without credentials as auth, sending nothing', async () => {
    const m = model();
    const { event } = await probe(m, undefined);
    expect(event).toMatchObject({ outcome: 'error', error_class: 'auth' });
    expect(fake.attemptsFor(m)).toHaveLength(0);
  });

  const faults: Array<[Fault, string]> = [
    [{ kind: 'finish_length' }, 'truncated'],
    [{ kind: 'content_filter' }, 'policy'],
    [{ kind: 'rate_limit' }, 'rate_limit'],
    [{ kind: 'status', status: 503 }, 'server'],
    [{ kind: 'context_length' }, 'context_length'],
  ];
  for (const [fault, cls] of faults) {
    it(`classifies ${fault.kind}${'status' in fault ? ` ${fault.status}` : ''} as ${cls}`, async () => {
      const m = model();
      fake.script(m, fault);
      const { event } = await probe(m, creds());
      expect(event).toMatchObject({ outcome: 'error', error_class: cls });
    });
  }

  it('asks a reasoning model for thinking with room for the answer on top of the budget', async () => {
    const m = model();
    const { event } = await probe(m, creds(), { thinking_budget: 1024 });
    expect(event.outcome).toBe('ok');
    expect(fake.attemptsFor(m).at(-1)!.body).toMatchObject({ inferenceConfig: { maxTokens: 1024 + 64 }, additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } } });
  });

  it('probes ConverseStream: event-stream frames read, the first token timed, usage from metadata', async () => {
    const m = model();
    fake.script(m, { kind: 'slow_first_token', ms: 300 });
    const { event } = await probe(m, creds(), { stream: true });
    expect(event).toMatchObject({ outcome: 'ok', status: 200 });
    expect(event.latency_ms.ttfb).toBeGreaterThanOrEqual(300);
    expect(fake.attemptsFor(m).at(-1)).toMatchObject({ path: `/model/${encodeURIComponent(m)}/converse-stream`, stream: true, status: 200 });
    expect(event.cost_usd).toBeGreaterThan(0);
  });

  const streamFaults: Array<[Fault, string]> = [
    [{ kind: 'cut_stream', afterTokens: 2 }, 'stream_broken'],
    [{ kind: 'stream_error', afterTokens: 1, code: 'throttlingException' }, 'rate_limit'],
    [{ kind: 'stream_error', afterTokens: 1 }, 'server'],
    [{ kind: 'finish_length' }, 'truncated'],
    [{ kind: 'content_filter' }, 'policy'],
  ];
  for (const [fault, cls] of streamFaults) {
    it(`classifies a streamed ${fault.kind}${'code' in fault ? ` (${fault.code})` : ''} as ${cls}`, async () => {
      const m = model();
      fake.script(m, fault);
      const { event } = await probe(m, creds(), { stream: true });
      expect(event).toMatchObject({ outcome: 'error', error_class: cls });
    });
  }

  it('refuses a malformed region in the config', () => {
    const { problems } = validateConfig({ targets: [target('anthropic.x-v1:0', { region: 'Frankfurt' })] }, { location: 'eu-west' });
    expect(problems.join('\n')).toMatch(/region.*AWS region/);
  });

  it('finds credentials in the AWS environment first, else in the profile of the shared credentials file', () => {
    expect(loadAwsCredentials({ AWS_ACCESS_KEY_ID: 'AKIAENV', AWS_SECRET_ACCESS_KEY: 's', AWS_SESSION_TOKEN: 't', AWS_REGION: 'eu-west-1' }, () => '')).toEqual({
      accessKeyId: 'AKIAENV', secretAccessKey: 's', sessionToken: 't', region: 'eu-west-1', source: 'environment',
    });
    const file = '[default]\naws_access_key_id = AKIADEF\naws_secret_access_key = d\n\n[probe]\naws_access_key_id=AKIAPROBE\naws_secret_access_key=p\n';
    expect(loadAwsCredentials({ AWS_PROFILE: 'probe', AWS_SHARED_CREDENTIALS_FILE: '/x' }, (p) => (p === '/x' ? file : ''))).toMatchObject({ accessKeyId: 'AKIAPROBE', source: 'profile probe' });
    expect(loadAwsCredentials({ HOME: '/home/u' }, (p) => (p === '/home/u/.aws/credentials' ? file : ''))).toMatchObject({ accessKeyId: 'AKIADEF', source: 'profile default' });
    expect(loadAwsCredentials({}, () => { throw new Error('ENOENT'); })).toBeUndefined();
  });
});
