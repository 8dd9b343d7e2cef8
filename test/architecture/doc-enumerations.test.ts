/**
 * The lists the documents spell out — alert rules, verdicts, hints, alert states, drill
 * outcomes, error codes — are the code's own exported lists, exactly: a value added to the
 * code and not to the document (or the other way round) fails here, naming the difference.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALERT_STATES, RULES } from '../../server/schemas/alerts.ts';
import { HINTS, VERDICTS } from '../../server/schemas/verdicts.ts';
import { ERRORS } from '../../server/errors.ts';
import { SDK_ERROR_CODES } from '../../sdk/errors/catalog.ts';
import { PROBE_ERROR_CODES } from '../../probe/errors.ts';
import { DRILL_END_REASONS, DRILL_IGNORE_REASONS } from '../../sdk/drills/drill-controller.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/**
 * The backticked values of the list that follows `lead` in `file`, up to the end of its
 * clause (a full stop, a semicolon, a colon, a dash, the aside it is in closing; or `until`); parentheses inside it are
 * asides, skipped.
 */
function listAfter(file: string, lead: string, until?: string): string[] {
  // Line breaks are spaces: a lead may span two lines of the document.
  const text = read(file).replace(/\s+/g, ' ');
  const at = text.indexOf(lead);
  if (at < 0) throw new Error(`${file}: no "${lead}"`);
  let rest = text.slice(at + lead.length);
  if (until !== undefined) rest = rest.slice(0, rest.indexOf(until));
  // Asides first (they may hold a full stop, e.g. "docs/alerts.md"), then the clause's end.
  for (let prev = ''; prev !== rest; ) {
    prev = rest;
    rest = rest.replace(/\([^()]*\)/g, '');
  }
  // A ")" left is the end of an aside the list itself is in.
  const end = rest.search(/\.\s|;| — |:\s|\)/);
  return [...new Set([...(end < 0 ? rest : rest.slice(0, end)).matchAll(/`([^`]+)`/g)].map((m) => m[1]!))].sort();
}

/** The first column's backticked values of the Markdown table whose header row starts with `header`. */
function tableColumn(file: string, header: string): string[] {
  const lines = read(file).split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) throw new Error(`${file}: no table "${header}"`);
  const out: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const m = /^\|\s*`([^`]+)`/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out.sort();
}

const sorted = (list: readonly string[]) => [...list].sort();

describe('enumerations in the documents match the code', () => {
  it('alert rules: docs/api.md and the rule table of docs/alerts.md list RULES', () => {
    expect(listAfter('docs/api.md', '- `rule` ∈')).toEqual(sorted(RULES));
    expect(tableColumn('docs/alerts.md', '| rule | target |')).toEqual(sorted(RULES));
  });

  it('verdicts and hints: docs/api.md lists VERDICTS and HINTS', () => {
    expect(listAfter('docs/api.md', '`verdict` ∈')).toEqual(sorted(VERDICTS));
    expect(listAfter('docs/api.md', '`hint` is `null` or one of')).toEqual(sorted(HINTS));
  });

  it('alert states: docs/api.md lists ALERT_STATES', () => {
    expect(listAfter('docs/api.md', 'Query: `state` ∈', ' (optional')).toEqual(sorted(ALERT_STATES));
  });

  it("drill outcomes: docs/drills.md and sdk/README.md list the SDK's end and ignore reasons", () => {
    expect(listAfter('docs/drills.md', '`ended` with')).toEqual(sorted(DRILL_END_REASONS));
    expect(listAfter('docs/drills.md', '`ignored` with')).toEqual(sorted(DRILL_IGNORE_REASONS));
    expect(listAfter('sdk/README.md', 'tells what each command did (`started`, `ended` with why, `ignored` with why:')).toEqual(sorted(DRILL_IGNORE_REASONS));
  });

  it("error codes: docs/api.md's table is the collector's catalog, with each status", () => {
    const rows = read('docs/api.md').split('\n').map((l) => /^\| `(BB_ERR_[A-Z_]+)` \| (\d{3}) \|/.exec(l)).filter((m) => m !== null);
    expect(Object.fromEntries(rows.map((m) => [m[1], Number(m[2])]))).toEqual(Object.fromEntries(Object.entries(ERRORS).map(([c, e]) => [c, e.status])));
  });

  it('error codes: every code a document names exists in a catalog', () => {
    const known = new Set<string>([...Object.keys(ERRORS), ...Object.values(SDK_ERROR_CODES), ...Object.values(PROBE_ERROR_CODES)]);
    const files = ['README.md', 'sdk/README.md', 'probe/README.md', ...readdirDocs()];
    const unknown = files.flatMap((f) => [...read(f).matchAll(/BB_ERR_[A-Z0-9_]*[A-Z0-9]\b/g)].map((m) => m[0]).filter((c) => !known.has(c)).map((c) => `${f}: ${c}`));
    expect(unknown).toEqual([]);
  });

  it('the list reader stops at the end of the clause and can fail', () => {
    expect(listAfter('docs/api.md', '- `rule` ∈')).not.toContain('key');
    expect(listAfter('docs/api.md', '- `rule` ∈')).not.toEqual([...sorted(RULES), 'made_up']);
  });
});

function readdirDocs(): string[] {
  // Every Markdown file in docs/ (not generated, all hand-written).
  return readdirSync(join(ROOT, 'docs')).filter((f: string) => f.endsWith('.md')).map((f: string) => `docs/${f}`);
}
