import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from './collector.ts';
import { otelLogger } from './otel-clients.ts';
import { sqlOf } from '../support/sql.ts';

const KEY_ATTRS = { 'gen_ai.provider.name': 'anthropic', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-3-5-haiku-latest' };
const KEY = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku-latest' };

let c: Awaited<ReturnType<typeof startCollector>>;
beforeAll(async () => {
  c = await startCollector();
});
afterAll(async () => {
  await c.close();
});

describe('resilience events as OTLP log records', () => {
  for (const encoding of ['protobuf', 'json'] as const) {
    it(`turn a key's breaker state open from circuitbreaker.state_change records (${encoding})`, async () => {
      const model = `claude-${encoding}`;
      const attrs = { ...KEY_ATTRS, 'gen_ai.request.model': model, 'circuitbreaker.name': 'claude' };
      const log = otelLogger({ url: c.url, token: c.tokens.ingest, encoding, service: `pybreaker-${encoding}`, instance: 'w-1' });
      const t = Date.now() - 30_000;
      log.emit('circuitbreaker.state_change', { ...attrs, 'circuitbreaker.state': 'closed' }, t);
      log.emit('circuitbreaker.state_change', { ...attrs, 'circuitbreaker.state': 'OPEN', 'breakerbox.previous_state': 'closed', 'breakerbox.cooldown_ms': 30_000 }, t + 1_000);
      log.emit('circuitbreaker.state_change', { ...attrs, 'circuitbreaker.state': 'half-open', 'breakerbox.previous_state': 'open' }, t + 2_000);
      log.emit('circuitbreaker.state_change', { ...attrs, 'circuitbreaker.state': 'open', 'breakerbox.previous_state': 'half-open' }, t + 3_000);
      log.emit('an.ordinary.log.line', { foo: 'bar' }, t + 3_500); // not ours: ignored, not refused
      await log.flush();
      await log.shutdown();

      const { keys } = await c.read<{ keys: any[] }>('/api/keys?window=15m');
      const row = keys.find((k) => k.key.model === model);
      expect(row.key).toEqual({ ...KEY, model });
      expect(row.state.summary).toBe('open');
      expect(row.state.text).toBe('open on 1 of 1');
      const stored = sqlOf(c.app)
        .prepare(`SELECT t.from_state, t.to_state, t.reason, t.cooldown_ms FROM transition_events t JOIN keys k ON k.id = t.key_id WHERE k.model = ? ORDER BY t.ts`)
        .all(model);
      expect(stored).toEqual([
        { from_state: null, to_state: 'closed', reason: 'created', cooldown_ms: null },
        { from_state: 'closed', to_state: 'open', reason: 'error_rate', cooldown_ms: 30_000 },
        { from_state: 'open', to_state: 'half_open', reason: 'cooldown_elapsed', cooldown_ms: null },
        { from_state: 'half_open', to_state: 'open', reason: 'probe_failed', cooldown_ms: null },
      ]);
      const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
      const v = verdicts.find((x) => x.key.model === model);
      expect(v.clients.transitions).toBe(3);
      expect(v.clients.opens).toBe(2);
    });
  }

  it('count bulkhead rejections, short circuits, task outcomes and fallbacks', async () => {
    const log = otelLogger({ url: c.url, token: c.tokens.ingest, encoding: 'protobuf', service: 'tenacity-app', instance: 'w-2' });
    const t = Date.now() - 20_000;
    for (let i = 0; i < 3; i++) log.emit('breakerbox.rejection', { ...KEY_ATTRS, 'breakerbox.rejection.by': 'bulkhead' }, t + i);
    log.emit('breakerbox.rejection', { ...KEY_ATTRS, 'breakerbox.rejection.by': 'circuitbreaker', 'breakerbox.count': 5 }, t + 10);
    log.emit('breakerbox.task', { 'breakerbox.operation': 'summarise', 'breakerbox.task.outcome': 'completed', 'breakerbox.task.level': 0, 'breakerbox.cost_usd': 0.01 }, t + 20);
    log.emit('breakerbox.task', { 'breakerbox.operation': 'summarise', 'breakerbox.task.outcome': 'completed', 'breakerbox.task.level': 2, 'breakerbox.task.attempts': 3, 'breakerbox.cost_usd': 0.03 }, t + 21);
    log.emit('breakerbox.task', { 'breakerbox.operation': 'summarise', 'breakerbox.task.outcome': 'failed', 'breakerbox.task.attempts': 4, 'breakerbox.fallback.invoked': true, 'breakerbox.fallback.failed': true }, t + 22);
    log.emit('breakerbox.fallback', { 'breakerbox.operation': 'summarise' }, t + 23);
    await log.flush();
    await log.shutdown();

    const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
    const v = verdicts.find((x) => x.key.model === KEY.model && x.key.provider === 'anthropic');
    expect(v.clients.rejected).toBe(3);
    expect(v.clients.short_circuited).toBe(5);
    const tasks = sqlOf(c.app)
      .prepare(`SELECT SUM(completed) AS completed, SUM(failed) AS failed, SUM(attempts) AS attempts, SUM(level0) AS level0, SUM(level2) AS level2,
        SUM(fallback_invoked) AS invoked, SUM(fallback_failed) AS failed_fallbacks, round(SUM(cost_usd), 6) AS cost FROM task_minutes WHERE operation = 'summarise'`)
      .get();
    expect(tasks).toEqual({ completed: 2, failed: 1, attempts: 8, level0: 1, level2: 1, invoked: 3, failed_fallbacks: 1, cost: 0.04 });
  });

  it('refuse records of the convention that lack what they need, in partial_success', async () => {
    const body = {
      resourceLogs: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'half-right' } }] },
        scopeLogs: [{
          logRecords: [
            { timeUnixNano: String(Date.now() * 1e6), eventName: 'circuitbreaker.state_change', attributes: [{ key: 'circuitbreaker.state', value: { stringValue: 'open' } }] },
            { timeUnixNano: String(Date.now() * 1e6), eventName: 'breakerbox.task', attributes: [] },
            { timeUnixNano: String(Date.now() * 1e6), body: { stringValue: 'hello' } },
          ],
        }],
      }],
    };
    const res = await c.app.inject({ method: 'POST', url: '/v1/logs', payload: body, headers: { authorization: `Bearer ${c.tokens.ingest}` } });
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    expect(answer.partialSuccess.rejectedLogRecords).toBe('2');
    expect(answer.partialSuccess.errorMessage).toMatch(/no provider/);
    expect(answer.partialSuccess.errorMessage).toMatch(/breakerbox.operation/);
  });
});
