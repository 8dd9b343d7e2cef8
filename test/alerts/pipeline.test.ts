/**
 * The alert pipeline's stages as pure functions (issue 29): rule registry, lifecycle,
 * grouping, silencing and one dedup decision per notification — each on its own, without a
 * collector.
 */
import { describe, expect, it } from 'vitest';
import type { StoredAlert } from '../../server/storage/storage.ts';
import { alertEvent, groupEvent, type DedupOptions, type GroupSnapshot } from '../../server/alerts/dedup.ts';
import { groupAlerts } from '../../server/alerts/grouping.ts';
import { clearedCondition, lifecycleStep } from '../../server/alerts/lifecycle.ts';
import { RULE_REGISTRY, runRules } from '../../server/alerts/rule-registry.ts';
import { silenced } from '../../server/alerts/silencing.ts';
import { RULES, type AlertView, type Condition } from '../../server/alerts/types.ts';
import type { RuleContext, RulesConfig } from '../../server/alerts/rules/context.ts';
import type { IncidentIndex } from '../../server/verdicts/incidents.ts';
import { loadConfig } from '../../server/config/load.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const T = 1_750_000_000_000;

const condition = (status: Condition['status'], over: Partial<Condition> = {}): Condition => ({
  fingerprint: 'f1', rule: 'open_share', keyId: 7, key: KEY, location: null, operation: null, status, value: 0.3, text: 'open 30% of the last 15 min', ...over,
});

const stored = (over: Partial<StoredAlert> = {}): StoredAlert => ({
  id: 1, fingerprint: 'f1', rule: 'open_share', keyId: 7, key: KEY, location: null, operation: null, state: 'firing', severity: 'warning',
  summary: 'open 30% of the last 15 min — x', value: 0.3, started_at: T, fired_at: T, resolved_at: null, updated_at: T, verdict: null, hint: null, group_key: null, ...over,
});

const view = (over: Partial<AlertView> = {}): AlertView => {
  const { keyId: _k, ...rest } = stored(over as Partial<StoredAlert>);
  return { ...rest, silenced: false, silenced_by: [], ...over };
};

describe('rule registry (stage 1)', () => {
  it('has one rule per name and runs only the enabled ones, in RULES order', async () => {
    expect(Object.keys(RULE_REGISTRY).sort()).toEqual([...RULES].sort());
    const ran: string[] = [];
    const registry = Object.fromEntries(RULES.map((name) => [name, async () => (ran.push(name), [])])) as unknown as typeof RULE_REGISTRY;
    const defaults = loadConfig({ env: {} }).alerts.rules;
    const rules: RulesConfig = { ...defaults, flapping: { ...defaults.flapping, enabled: false } };
    await runRules({} as RuleContext, rules, registry);
    expect(ran).toEqual(RULES.filter((r) => r !== 'flapping'));
  });
});

describe('lifecycle (stage 2)', () => {
  const rule = { for_s: 120, severity: 'warning' as const };

  it('starts pending, fires once the condition has held for_s, and resolves when clear', () => {
    expect(lifecycleStep(T, condition('fire'), undefined, rule, undefined)).toMatchObject({ op: 'insert', alert: { state: 'pending', started_at: T, fired_at: null } });
    const pending = stored({ state: 'pending', started_at: T, fired_at: null });
    expect(lifecycleStep(T + 60_000, condition('fire'), pending, rule, undefined)).toMatchObject({ op: 'update', fields: { state: 'pending' } });
    expect(lifecycleStep(T + 120_000, condition('fire'), pending, rule, undefined)).toMatchObject({ op: 'update', fields: { state: 'firing', fired_at: T + 120_000 } });
    expect(lifecycleStep(T + 300_000, condition('clear'), stored(), rule, undefined)).toMatchObject({ op: 'update', fields: { state: 'resolved', fired_at: T, resolved_at: T + 300_000 } });
  });

  it('holds between the thresholds: a firing alert stays, a pending one is dropped, nothing new starts', () => {
    expect(lifecycleStep(T, condition('hold'), stored(), rule, undefined)).toMatchObject({ op: 'update', fields: { state: 'firing' } });
    expect(lifecycleStep(T, condition('hold'), stored({ state: 'pending', fired_at: null }), rule, undefined)).toEqual({ op: 'remove', id: 1 });
    expect(lifecycleStep(T, condition('hold'), undefined, rule, undefined)).toBeNull();
  });

  it('fires at once with for_s 0, and takes a condition\'s own verdict over the key\'s', () => {
    const own = condition('fire', { verdict: { verdict: 'self_inflicted', hint: 'quota', phrase: 'self_inflicted / quota on billing-svc' } });
    expect(lifecycleStep(T, own, undefined, { for_s: 0, severity: 'critical' }, undefined)).toMatchObject({
      op: 'insert', alert: { state: 'firing', fired_at: T, severity: 'critical', verdict: 'self_inflicted', hint: 'quota', summary: 'open 30% of the last 15 min — self_inflicted / quota on billing-svc' },
    });
  });

  it('clears a target no rule reported any more, keeping its own sentence', () => {
    expect(clearedCondition(stored())).toMatchObject({ status: 'clear', fingerprint: 'f1', text: 'open 30% of the last 15 min' });
  });
});

describe('grouping (stage 3) and silencing (stage 4)', () => {
  const incident = { id: 'inc1', title: 'openai: gpt-4o, provider outage' } as IncidentIndex['incidents'][number];
  const index: IncidentIndex = { incidents: [incident], byKeyId: new Map([[7, incident]]), byLocation: new Map() };

  it('groups firing alerts under their key\'s incident and resolved ones under the group they notified in; silenced ones are counted, not carried', () => {
    const alerts = [
      view({ id: 1, fingerprint: 'a', severity: 'warning' }),
      view({ id: 2, fingerprint: 'b', severity: 'critical', rule: 'clients_degraded' }),
      view({ id: 3, fingerprint: 'c', silenced: true }),
      view({ id: 4, fingerprint: 'd', state: 'resolved', group_key: 'old' }),
    ];
    const groups = groupAlerts(alerts, index, () => 7, () => true);
    expect([...groups.keys()]).toEqual(['inc1', 'old']);
    expect(groups.get('inc1')!.firing.map((a) => a.id)).toEqual([2, 1]); // the most severe leads
    expect(groups.get('inc1')!.silenced).toBe(1);
    expect(groups.get('old')!.resolved.map((a) => a.id)).toEqual([4]);
  });

  it('marks an alert silenced by the active silences whose matchers all match it', () => {
    const silence = { id: 's1', matchers: [{ name: 'rule' as const, value: 'open_share', regex: false }, { name: 'model' as const, value: 'gpt-4.*', regex: true }] };
    expect(silenced(stored(), [silence as never])).toMatchObject({ silenced: true, silenced_by: ['s1'] });
    expect(silenced(stored({ rule: 'flapping' }), [silence as never])).toMatchObject({ silenced: false, silenced_by: [] });
    expect(silenced(stored(), [])).not.toHaveProperty('keyId');
  });
});

describe('dedup (stage 5): one decision per notification', () => {
  const o: DedupOptions = { repeatMs: 600_000, sendResolved: true, groupWaitMs: 30_000, groupIntervalMs: 300_000 };
  const sent = <E extends 'firing' | 'update' | 'repeat' | 'resolved'>(event: E, at: number, digest = 'd1') => ({ last_event: event, last_sent_at: at, last_attempt_at: at, last_status: 'ok' as const, digest });

  it('per alert: a first page, a repeat after the repeat interval, one resolve notice', () => {
    expect(alertEvent({ state: 'firing' }, undefined, T, o)).toBe('firing');
    expect(alertEvent({ state: 'firing' }, sent('firing', T), T + 599_000, o)).toBeNull();
    expect(alertEvent({ state: 'firing' }, sent('firing', T), T + 600_000, o)).toBe('repeat');
    expect(alertEvent({ state: 'resolved' }, sent('repeat', T), T + 1, o)).toBe('resolved');
    expect(alertEvent({ state: 'resolved' }, sent('resolved', T), T + 1, o)).toBeNull();
    expect(alertEvent({ state: 'resolved' }, undefined, T, o)).toBeNull();
    expect(alertEvent({ state: 'resolved' }, sent('firing', T), T + 1, { ...o, sendResolved: false })).toBeNull();
  });

  it('retries a failed delivery no sooner than a minute', () => {
    const failed = { last_event: null, last_sent_at: null, last_attempt_at: T, last_status: 'failed' as const };
    expect(alertEvent({ state: 'firing' }, failed, T + 59_000, o)).toBeNull();
    expect(alertEvent({ state: 'firing' }, failed, T + 60_000, o)).toBe('firing');
  });

  const group = (over: Partial<GroupSnapshot> = {}): GroupSnapshot => ({ firing: [view()], resolved: [], silenced: 0, digest: 'd1', ...over });

  it('per group: a first page, an update when it changed (at most every group interval), a repeat, one resolve notice', () => {
    expect(groupEvent(group(), undefined, T, o)).toBe('firing');
    expect(groupEvent(group({ digest: 'd2' }), sent('firing', T), T + 299_000, o)).toBeNull();
    expect(groupEvent(group({ digest: 'd2' }), sent('firing', T), T + 300_000, o)).toBe('update');
    expect(groupEvent(group(), sent('update', T), T + 600_000, o)).toBe('repeat');
    expect(groupEvent(group({ firing: [], resolved: [view({ state: 'resolved' })] }), sent('repeat', T), T + 1, o)).toBe('resolved');
    expect(groupEvent(group({ firing: [], resolved: [view({ state: 'resolved' })] }), undefined, T, o)).toBeNull();
  });

  it('holds a first page whose verdict waits for requested probes until group_wait has passed since it fired', () => {
    const waiting = group({ firing: [view({ hint: 'probes_pending', fired_at: T })] });
    expect(groupEvent(waiting, undefined, T + 29_000, o)).toBeNull();
    expect(groupEvent(waiting, undefined, T + 30_000, o)).toBe('firing');
  });

  it('sends nothing for a group whose firing alerts are all silenced, not even a resolve notice', () => {
    expect(groupEvent(group({ firing: [], silenced: 2 }), undefined, T, o)).toBeNull();
    expect(groupEvent(group({ firing: [], resolved: [view({ state: 'resolved' })], silenced: 1 }), sent('firing', T), T + 1, o)).toBeNull();
  });
});
