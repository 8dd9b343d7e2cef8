import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config/load.ts';
import { daysLeft, loadCalendar } from '../../server/lifecycle/calendar.ts';
import shipped from '../../server/lifecycle/retirements.json' with { type: 'json' };

const dir = mkdtempSync(join(tmpdir(), 'bbx-calendar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** loadConfig over a real config file holding `lifecycle` (and anything else given). */
function load(settings: Record<string, unknown>) {
  const file = join(dir, `c-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(settings));
  return loadConfig({ env: { BREAKERBOX_CONFIG: file } });
}
const entry = (over: Record<string, unknown> = {}) => ({ provider: 'openai', model: 'gpt-4o', shutdown: '2027-01-14', ...over });
const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('no error thrown');
};

describe('the calendar settings, validated at start', () => {
  it('defaults to the shipped calendar and no operator entries', () => {
    expect(load({}).lifecycle).toEqual({ shipped_calendar: true, retirements: [] });
  });

  it('names the entry and field of a malformed date, an impossible date, a missing field and an unknown one', () => {
    expect(errorOf(() => load({ lifecycle: { retirements: [entry(), entry({ shutdown: '14/01/2027' })] } }))).toMatch(/lifecycle\.retirements\.1\.shutdown: must be a text matching .*YYYY-MM-DD/);
    expect(errorOf(() => load({ lifecycle: { retirements: [entry({ shutdown: '2027-02-30' })] } }))).toMatch(/lifecycle\.retirements\.0\.shutdown: is not a date in the calendar, got "2027-02-30"/);
    expect(errorOf(() => load({ lifecycle: { retirements: [{ provider: 'openai', shutdown: '2027-01-14' }] } }))).toMatch(/lifecycle\.retirements\.0\.model/);
    expect(errorOf(() => load({ lifecycle: { retirements: [entry({ sunset: 'x' })] } }))).toMatch(/lifecycle\.retirements\.0\.sunset: unknown setting/);
    expect(errorOf(() => load({ lifecycle: { retirements: [entry({ link: 'ftp://x' })] } }))).toMatch(/lifecycle\.retirements\.0\.link/);
  });

  it('refuses a critical threshold past the warning one', () => {
    expect(errorOf(() => load({ alerts: { rules: { model_retiring: { warning_days: 5, critical_days: 7 } } } }))).toMatch(/alerts\.rules\.model_retiring\.critical_days: must be at most .*warning_days \(5\), got 7/);
  });
});

describe('the shipped calendar', () => {
  it('validates, and every entry names its source page and the day it was read', () => {
    const calendar = loadCalendar({ shipped_calendar: true, retirements: [] });
    expect(calendar.entries.length).toBe(shipped.retirements.length);
    for (const e of calendar.entries) {
      expect(e.source).toBe('shipped');
      expect(e.link).toMatch(/^https:\/\//);
      expect(e.readOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(shipped.sources.map((s) => s.url)).toContain(e.link);
    }
  });

  it('is refused at start with the file, entry and field when an entry is broken', () => {
    const broken = structuredClone(shipped) as any;
    broken.retirements.push({ provider: 'openai', model: 'gpt-x', shutdown: '2027-01-01', link: 'https://example.test' });
    expect(errorOf(() => loadCalendar({ shipped_calendar: true, retirements: [] }, broken))).toMatch(/server\/lifecycle\/retirements\.json: retirements\.\d+/);
  });

  it('is skipped with shipped_calendar off', () => {
    expect(loadCalendar({ shipped_calendar: false, retirements: [] }, { nonsense: true }).entries).toEqual([]);
  });
});

describe('matching a key to its retirement', () => {
  const file = {
    about: 'test', sources: [],
    retirements: [
      { provider: 'openai', model: 'gpt-4o', shutdown: '2027-01-14', successor: 'from-file', link: 'https://example.test', read_on: '2026-12-02' },
      { provider: 'openai', model: 'gpt-4o-*', shutdown: '2027-01-14', link: 'https://example.test', read_on: '2026-12-02' },
    ],
  };
  const calendar = loadCalendar({
    shipped_calendar: true,
    retirements: [
      { provider: 'openai', model: 'gpt-4o', shutdown: '2027-02-01', successor: 'from-config' },
      { provider: 'together', model: 'meta-llama/*-Turbo', shutdown: '2027-03-01T12:00:00Z' },
    ],
  }, file);

  it('prefers the operator entry to the shipped one for the same model', () => {
    expect(calendar.of('openai', 'gpt-4o')).toMatchObject({ successor: 'from-config', source: 'config', shutdown: '2027-02-01' });
  });

  it('matches patterns with * over ids containing / : and @, per provider, and nothing else', () => {
    expect(calendar.of('openai', 'gpt-4o-2024-08-06')).toMatchObject({ model: 'gpt-4o-*', source: 'shipped' });
    expect(calendar.of('together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo')).toMatchObject({ shutdownAt: Date.parse('2027-03-01T12:00:00Z') });
    expect(calendar.of('azure', 'gpt-4o')).toBeNull();
    expect(calendar.of('openai', 'gpt-4o.mini')).toBeNull();
    expect(calendar.of('openai', 'gpt-4.1')).toBeNull();
  });

  it('counts days left from 00:00 UTC of a bare date, rounded up', () => {
    const r = calendar.of('openai', 'gpt-4o')!;
    expect(r.shutdownAt).toBe(Date.parse('2027-02-01T00:00:00Z'));
    expect(daysLeft(r, Date.parse('2027-01-31T23:00:00Z'))).toBe(1);
    expect(daysLeft(r, Date.parse('2027-02-01T00:00:00Z'))).toBe(0);
    expect(daysLeft(r, Date.parse('2027-02-03T00:00:00Z'))).toBe(-2);
  });
});
