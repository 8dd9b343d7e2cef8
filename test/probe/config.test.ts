/**
 * The prober's config file: defaults resolved once, one problem line per mistake
 * naming the target and the field, literal credentials refused without being echoed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../probe/config-load.ts';
import { validateConfig } from '../../probe/config-validate.ts';
import { buildPlan, formatPlan } from '../../probe/plan.ts';
import { intervalToCron, jitterOffset } from '../../probe/schedule-spec.ts';
import { ADAPTERS } from '../../probe/adapters/index.ts';

/** The kinds the prober knows, as its error message lists them. */
const KINDS = Object.keys(ADAPTERS).join(', ');
import { configOf, rawTarget } from './helpers.ts';

const BASE = 'https://api.example.com/v1';

function problemsOf(raw: unknown, opts: { location?: string } = { location: 'eu-west' }): string[] {
  return validateConfig(raw, opts).problems;
}

describe('the example file', () => {
  it('probes.example.yaml is valid and its plan lists every target with a daily cost', () => {
    const raw = parseConfigText(readFileSync('probe/probes.example.yaml', 'utf8'), 'probes.example.yaml');
    const { config, problems } = validateConfig(raw, { location: 'us-east' });
    expect(problems).toEqual([]);
    expect(config?.location).toBe('us-east');
    const plan = buildPlan(config!);
    expect(plan.rows.map((r) => [r.name, r.kind])).toEqual([
      ['openai-mini-stream', 'openai-chat'],
      ['anthropic-haiku', 'anthropic-messages'],
      ['together-llama-us', 'openai-chat'],
      ['openai-responses-stream', 'openai-responses'],
      ['gpt5-mini-reasoning', 'openai-chat'],
      ['gateway-reasoner', 'openai-chat'],
      ['embeddings-small', 'openai-embeddings'],
      ['gemini-flash-stream', 'gemini'],
      ['vertex-flash-eu', 'gemini'],
      ['rerank', 'http'],
      ['nano-sum-canary', 'openai-chat'],
      ['haiku-extract-canary', 'anthropic-messages'],
    ]);
    expect(plan.rows.filter((r) => r.canary).map((r) => r.name)).toEqual(['nano-sum-canary', 'haiku-extract-canary']);
    // A reasoning probe is costed at its whole 1024-token budget: the most it can spend.
    expect(plan.rows[4]?.costPerDay).toBeCloseTo((288 * (16 * 0.25 + 1024 * 2)) / 1e6, 8);
    // 1440 runs/day x (16 input tokens x $0.15 + 8 output tokens x $0.60) per million:
    // a 30-character prompt is 8 tokens at four characters a token, plus 8 for the framing.
    expect(plan.rows[0]?.costPerDay).toBeCloseTo((1440 * (16 * 0.15 + 8 * 0.6)) / 1e6, 8);
    const text = formatPlan(config!, plan, ['a warning']);
    expect(text).toContain('estimated daily cost: at most');
    expect(text).toContain('a warning');
  });
});

describe('defaults', () => {
  it('fills interval, jitter, timeouts, request and location from defaults', () => {
    const config = configOf({
      defaults: { interval: '30s', latency_ceiling_ms: 3000, timeouts: { total_ms: '20s' } },
      targets: [{ key: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' }, kind: 'openai-chat', base_url: BASE, api_key_env: 'OPENAI_API_KEY' }],
    });
    const t = config.targets[0]!;
    expect(t.name).toBe('openai/chat/gpt-4o-mini');
    expect(t.schedule).toMatchObject({ cron: '*/30 * * * * *', source: 'interval', minGapMs: 30_000, runsPerDay: 2880 });
    expect(t.jitterMs).toBe(15_000);
    expect(t.jitterOffsetMs).toBeGreaterThanOrEqual(0);
    expect(t.jitterOffsetMs).toBeLessThan(15_000);
    expect(t.timeouts).toEqual({ connectMs: 5_000, firstByteMs: 15_000, totalMs: 20_000 });
    expect(t.location).toBe('eu-west');
    expect(t.request).toMatchObject({ model: 'gpt-4o-mini', maxTokens: 8, stream: false, path: '/chat/completions' });
    expect(config.maxConcurrent).toBe(32);
  });

  it('--location wins over the file, and a target may name its own', () => {
    const config = configOf({ location: 'file-loc', targets: [rawTarget(BASE, 'a'), rawTarget(BASE, 'b', { location: 'ap-south' })] }, 'flag-loc');
    expect(config.location).toBe('flag-loc');
    expect(config.targets.map((t) => t.location)).toEqual(['flag-loc', 'ap-south']);
  });

  it('model ids with "/", ":" and "@" are kept exactly', () => {
    const model = 'accounts/fireworks/models/llama-v3p1-8b-instruct:free@2024';
    const config = configOf({ targets: [rawTarget(BASE, 'x', { key: { provider: 'fireworks', endpoint: 'chat', model } })] });
    expect(config.targets[0]?.key.model).toBe(model);
    expect(config.targets[0]?.request).toMatchObject({ model });
  });
});

describe('problems', () => {
  it('reports every problem on its own line naming the target and the field', () => {
    const problems = problemsOf({
      max_concurrent: 0,
      targets: [
        rawTarget(BASE, 'a', { kind: 'openai-chat', request: { max_tokens: 0, strem: true } }),
        rawTarget('ftp://x', 'b', { interval: '45s' }),
        rawTarget(BASE, 'c', { kind: 'grpc' }),
      ],
    });
    expect(problems).toEqual([
      'max_concurrent: must be an integer between 1 and 10000, got 0',
      'target "a" (targets[0]): request.strem: unknown field (allowed: model, prompt, system, max_tokens, stream, path, include_usage, reasoning, reasoning_effort)',
      'target "a" (targets[0]): request.max_tokens: must be an integer between 1 and 32768, got 0',
      'target "b" (targets[1]): base_url: must use http or https',
      'target "b" (targets[1]): interval: must divide the minute, hour or day evenly (e.g. 15s, 30s, 1m, 5m, 1h); use `cron` for anything else',
      `target "c" (targets[2]): kind: unknown kind "grpc" (known: ${KINDS})`,
    ]);
  });

  it('requires a location, targets, and a latency ceiling', () => {
    expect(problemsOf({ targets: [] }, {})).toEqual([
      'location: is required: give --location or set location in the file',
      'targets: must be a non-empty list of targets',
    ]);
    const noCeiling = rawTarget(BASE, 'a');
    delete noCeiling.latency_ceiling_ms;
    expect(problemsOf({ targets: [noCeiling] })).toEqual([
      'target "a" (targets[0]): latency_ceiling_ms: is required (here or in defaults): what a caller can wait for, in ms',
    ]);
  });

  it('refuses timeouts that do not fit in the total, and jitter as long as the interval', () => {
    expect(problemsOf({ targets: [rawTarget(BASE, 'a', { timeouts: { connect_ms: 5000, total_ms: 1000 }, interval: '10s', jitter: '10s' })] })).toEqual([
      'target "a" (targets[0]): timeouts.connect_ms: is 5000 ms, more than total_ms (1000 ms)',
      'target "a" (targets[0]): timeouts.first_byte_ms: is 15000 ms, more than total_ms (1000 ms)',
      'target "a" (targets[0]): jitter: must be shorter than the time between runs (10000 ms)',
    ]);
  });

  it('refuses a cron expression it cannot run, and interval with cron together', () => {
    expect(problemsOf({ targets: [rawTarget(BASE, 'a', { cron: '99 * * * *' }), rawTarget(BASE, 'b', { cron: '* * * * *', interval: '1m' })] })).toEqual([
      'target "a" (targets[0]): cron: invalid cron expression: minute: 99 is a invalid expression for minute',
      'target "b" (targets[1]): cron: give either interval or cron, not both',
    ]);
  });

  it('refuses duplicate names and the same key probed twice from one location', () => {
    const problems = problemsOf({ targets: [rawTarget(BASE, 'a'), rawTarget(BASE, 'a')] });
    expect(problems).toEqual([
      'target "a" (targets[1]): name: duplicates the name of targets[0]',
      'target "a" (targets[1]): key: same key, location and stream mode as targets[0]',
    ]);
  });

  it('refuses a health or status endpoint for the http kind', () => {
    const problems = problemsOf({ targets: [rawTarget(BASE, 'h', { kind: 'http', request: { path: '/v1/health' } })] });
    expect(problems).toEqual([
      'target "h" (targets[0]): request.path: a health or status endpoint is refused: probe with a real request of the shape the product sends',
    ]);
  });
});

describe('credentials in the file', () => {
  const key = 'sk-live-abcdefghijklmnopqrstuvwxyz0123456789';

  it('refuses a literal key in api_key_env without echoing it', () => {
    const problems = problemsOf({ targets: [rawTarget(BASE, 'a', { api_key_env: key })] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^target "a" \(targets\[0\]\): api_key_env: looks like a literal API key/);
    expect(problems.join('\n')).not.toContain(key.slice(3, 12));
  });

  it('refuses api_key fields, credential headers and keys in the URL', () => {
    const problems = problemsOf({
      targets: [
        rawTarget(BASE, 'a', { api_key: key }),
        rawTarget(BASE, 'b', { kind: 'http', request: { path: '/embeddings', headers: { 'X-Api-Key': key } } }),
        rawTarget(`${BASE}?key=${key}`, 'c'),
        rawTarget(`https://user:${key}@api.example.com/v1`, 'd'),
      ],
    });
    expect(problems).toEqual([
      'target "a" (targets[0]): api_key: a literal credential in the file is refused; use api_key_env (the NAME of an environment variable)',
      'target "b" (targets[1]): request.headers.X-Api-Key: a literal credential is refused; put the key in an environment variable named by api_key_env',
      'target "c" (targets[2]): base_url: a credential in the query string is refused; use api_key_env',
      'target "d" (targets[3]): base_url: credentials in the URL are refused; use api_key_env',
    ]);
    expect(problems.join('\n')).not.toContain(key.slice(3, 12));
  });
});

describe('schedules', () => {
  it('turns intervals that divide the minute, hour or day into cron expressions', () => {
    expect(intervalToCron(1_000)).toEqual({ cron: '* * * * * *' });
    expect(intervalToCron(15_000)).toEqual({ cron: '*/15 * * * * *' });
    expect(intervalToCron(60_000)).toEqual({ cron: '0 * * * * *' });
    expect(intervalToCron(300_000)).toEqual({ cron: '0 */5 * * * *' });
    expect(intervalToCron(3_600_000)).toEqual({ cron: '0 0 * * * *' });
    expect(intervalToCron(6 * 3_600_000)).toEqual({ cron: '0 0 */6 * * *' });
    expect(intervalToCron(86_400_000)).toEqual({ cron: '0 0 0 * * *' });
    expect(intervalToCron(45_000)).toHaveProperty('problem');
    expect(intervalToCron(1_500)).toHaveProperty('problem');
  });

  it('spreads one shared config file\'s probes per location: probers with different --location flags probe each target at different offsets', () => {
    const raw = { defaults: { interval: '1m' }, targets: Array.from({ length: 20 }, (_, i) => rawTarget(BASE, `t${i}`)) };
    const offsets = (location: string) => configOf(raw, location).targets.map((t) => t.jitterOffsetMs);
    const eu = offsets('eu-west');
    const us = offsets('us-east');
    // Stable per location (a restart keeps the spread)…
    expect(offsets('eu-west')).toEqual(eu);
    // …and different between locations for the same target: 20 targets over a 30 s window, at most a chance coincidence or two.
    expect(eu.filter((o, i) => Math.abs(o - us[i]!) < 1_000).length).toBeLessThanOrEqual(2);
    // A target naming its own location is probed from there by every prober, at one offset.
    const own = { targets: [rawTarget(BASE, 'pinned', { location: 'ap-south' })] };
    expect(configOf(own, 'eu-west').targets[0]!.jitterOffsetMs).toBe(configOf(own, 'us-east').targets[0]!.jitterOffsetMs);
  });

  it('gives each target a stable jitter offset spread over the window', () => {
    expect(jitterOffset('a', 30_000)).toBe(jitterOffset('a', 30_000));
    const offsets = Array.from({ length: 1000 }, (_, i) => jitterOffset(`target-${i}`, 60_000));
    const buckets = new Array<number>(6).fill(0);
    for (const o of offsets) buckets[Math.floor(o / 10_000)]! += 1;
    // 1000 names over six 10 s buckets: none empty, none holding half of them.
    for (const b of buckets) {
      expect(b).toBeGreaterThan(100);
      expect(b).toBeLessThan(250);
    }
  });

  it('counts runs per day of a cron expression for the cost estimate', () => {
    const config = configOf({ targets: [rawTarget(BASE, 'a', { cron: '0 */10 9-16 * * *' })] });
    expect(config.targets[0]?.schedule.runsPerDay).toBeCloseTo(48, 5);
    expect(config.targets[0]?.schedule.minGapMs).toBe(600_000);
  });
});
