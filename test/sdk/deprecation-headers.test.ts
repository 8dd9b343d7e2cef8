/**
 * Reading a provider's deprecation signal off an answer's headers: RFC 9745 `Deprecation`
 * (`@<epoch seconds>`, an RFC 9651 Date) and RFC 8594 `Sunset` (an HTTP-date in any of the
 * three forms RFC 9110 makes a recipient accept). Junk is no signal, never an error.
 */
import { describe, expect, it } from 'vitest';
import { deprecationSignalOf, parseDeprecation, parseHttpDate } from '../../protocol/index.ts';
import { KeyStats } from '../../sdk/telemetry/key-stats.ts';

const H = (h: Record<string, string>) => new Headers(h);
const SUNSET = Date.UTC(2027, 0, 11); // Mon, 11 Jan 2027

describe('Sunset (RFC 8594): an HTTP-date', () => {
  it('reads the IMF-fixdate form and the two obsolete forms', () => {
    expect(parseHttpDate('Mon, 11 Jan 2027 00:00:00 GMT')).toBe(SUNSET);
    expect(parseHttpDate(new Date(SUNSET + 3_723_000).toUTCString())).toBe(SUNSET + 3_723_000);
    expect(parseHttpDate('Monday, 11-Jan-27 00:00:00 GMT')).toBe(SUNSET);
    expect(parseHttpDate('Mon Jan 11 00:00:00 2027')).toBe(SUNSET);
    expect(parseHttpDate('Thu Feb  4 08:49:37 2027')).toBe(Date.UTC(2027, 1, 4, 8, 49, 37));
  });

  it('refuses what is not an HTTP-date: ISO strings, impossible days, other zones, junk', () => {
    for (const junk of ['2027-01-11', '2027-01-11T00:00:00Z', 'Tue, 30 Feb 2027 00:00:00 GMT', 'Mon, 11 Jan 2027 25:00:00 GMT',
      'Mon, 11 Jan 2027 00:00:00 PST', 'mon, 11 jan 2027 00:00:00 gmt', 'tomorrow', '', '1767225600', `Mon, 11 Jan 2027 00:00:00 GMT${' '.repeat(80)}x`]) {
      expect(parseHttpDate(junk), junk).toBeUndefined();
    }
  });
});

describe('Deprecation (RFC 9745): a structured-field Date', () => {
  it('reads @<seconds>, parameters ignored', () => {
    expect(parseDeprecation('@1767225600')).toBe(1_767_225_600_000);
    expect(parseDeprecation(' @0 ')).toBe(0);
    expect(parseDeprecation('@1767225600;foo=1')).toBe(1_767_225_600_000);
  });

  it('refuses the draft forms and junk', () => {
    for (const junk of ['true', '?1', 'Mon, 11 Jan 2027 00:00:00 GMT', '@', '@1.5', '@abc', '1767225600', '@-5', '@1234567890123456']) {
      expect(parseDeprecation(junk), junk).toBeUndefined();
    }
  });
});

describe('the signal of an answer', () => {
  it('is what parses of the two headers, or none at all', () => {
    expect(deprecationSignalOf(H({ deprecation: '@1767225600', sunset: 'Mon, 11 Jan 2027 00:00:00 GMT' }))).toEqual({ deprecationAt: 1_767_225_600_000, sunsetAt: SUNSET });
    expect(deprecationSignalOf(H({ sunset: 'Mon, 11 Jan 2027 00:00:00 GMT', deprecation: 'true' }))).toEqual({ sunsetAt: SUNSET });
    expect(deprecationSignalOf(H({ deprecation: 'yes', sunset: 'soon' }))).toBeUndefined();
    expect(deprecationSignalOf(H({ 'content-type': 'application/json' }))).toBeUndefined();
    expect(deprecationSignalOf(undefined)).toBeUndefined();
  });

  it("goes into the key's window: answers counted, the latest dates kept, and reset with the window", () => {
    const stats = new KeyStats({ provider: 'openai', endpoint: 'chat', model: 'gpt-4o' }, [100], 0);
    stats.attempt(10, null, false, false, false, false);
    expect(stats.drain(1)?.deprecation_signal).toBeUndefined();
    stats.attempt(10, null, false, false, false, false);
    stats.deprecation({ deprecationAt: 1000, sunsetAt: SUNSET - 1 });
    stats.attempt(10, 'bad_request', false, false, false, false);
    stats.deprecation({ sunsetAt: SUNSET });
    expect(stats.drain(2)?.deprecation_signal).toEqual({ responses: 2, sunset_at: SUNSET });
    stats.attempt(10, null, false, false, false, false);
    expect(stats.drain(3)?.deprecation_signal).toBeUndefined();
  });
});
