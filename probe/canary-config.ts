/**
 * A target's `canary` (issue 39): what a correct answer to its fixed tiny task is. Exactly one
 * of `word` (exact, or case-folded with `case_fold: true`), `regex`, `json_schema` (a
 * structured answer: the request asks for JSON of that schema) or `tool_call` (the request
 * offers one tool and forces it; the call must name it with these arguments). A canary makes
 * the request near-deterministic: temperature 0 and, where the API takes one, `seed`.
 * Every problem names its field (`canary.regex`, `canary.tool_call.name`, …).
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { isRecord, show, type FieldReader } from './config-fields.ts';

/** What a correct answer is. */
export type CanaryExpect =
  | { kind: 'word'; word: string; caseFold: boolean }
  | { kind: 'regex'; source: string; regex: RegExp }
  | { kind: 'json_schema'; schema: Record<string, unknown>; validator: Validator }
  | { kind: 'tool_call'; name: string; arguments: Record<string, unknown>; parameters: Record<string, unknown> };

/** A resolved canary. */
export interface Canary {
  expect: CanaryExpect;
  /** The sampling seed sent where the API takes one (OpenAI chat, Gemini). */
  seed: number;
}

export const CANARY_KINDS = ['word', 'regex', 'json_schema', 'tool_call'] as const;
const FIELDS = [...CANARY_KINDS, 'case_fold', 'seed'] as const;
const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** Longest regular expression accepted (a canary's pattern is small by design). */
const MAX_REGEX_CHARS = 500;

/** A schema's problem a validator would not report: a `type` that is no JSON type, anywhere. */
function schemaProblem(schema: unknown, at = ''): string | undefined {
  if (!isRecord(schema)) return undefined;
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  for (const t of types) if (typeof t !== 'string' || !JSON_TYPES.has(t)) return `${at || '(root)'}: type ${show(t)} is not a JSON type (${[...JSON_TYPES].join(', ')})`;
  if (isRecord(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      const p = schemaProblem(sub, `${at}/properties/${name}`);
      if (p) return p;
    }
  }
  return schemaProblem(schema.items, `${at}/items`);
}

function readSchema(r: FieldReader, name: string, objectOnly: boolean): Record<string, unknown> | undefined {
  const value = r.obj[name];
  if (!isRecord(value)) {
    r.problem(name, `must be a JSON Schema object, got ${show(value)}`);
    return undefined;
  }
  const problem = schemaProblem(value);
  if (problem) {
    r.problem(name, `is not a valid JSON Schema: ${problem}`);
    return undefined;
  }
  if (objectOnly && value.type !== 'object') {
    r.problem(name, 'must describe an object (type: object): structured outputs and tool arguments are objects');
    return undefined;
  }
  try {
    new Validator(value as Schema, '2020-12').validate({});
  } catch (err) {
    r.problem(name, `is not a usable JSON Schema: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  return value;
}

function readToolCall(r: FieldReader): CanaryExpect | undefined {
  const t = r.object('tool_call');
  if (!t) return undefined;
  t.rejectUnknown(['name', 'arguments', 'parameters']);
  const name = t.string('name', { required: true, pattern: TOOL_NAME, hint: 'must be a function name (letters, digits, "_" or "-", at most 64)' });
  const args = t.object('arguments', { required: true });
  const parameters = t.has('parameters') ? readSchema(t, 'parameters', true) : undefined;
  if (!name || !args) return undefined;
  // Without a declared schema, the tool takes exactly the expected arguments' fields.
  const declared = parameters ?? {
    type: 'object',
    properties: Object.fromEntries(Object.entries(args.obj).map(([k, v]) => [k, { type: jsonTypeOf(v) }])),
    required: Object.keys(args.obj),
  };
  if (parameters && !new Validator(parameters as Schema, '2020-12').validate(args.obj).valid) {
    t.problem('arguments', 'do not match tool_call.parameters: the expected call could never be made');
    return undefined;
  }
  return { kind: 'tool_call', name, arguments: args.obj, parameters: declared };
}

function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * Reads `canary` of a target; undefined when absent or wrong (problems reported). `kind`
 * support and streaming are checked by the caller, which knows the adapter.
 */
export function readCanary(target: FieldReader): Canary | undefined {
  const c = target.object('canary');
  if (!c) return undefined;
  c.rejectUnknown(FIELDS);
  const given = CANARY_KINDS.filter((k) => c.has(k));
  if (given.length !== 1) {
    target.problem('canary', `give exactly one of ${CANARY_KINDS.join(', ')}${given.length ? ` (got ${given.join(', ')})` : ''}`);
    return undefined;
  }
  const caseFold = c.boolean('case_fold');
  if (caseFold !== undefined && given[0] !== 'word') c.problem('case_fold', 'applies to word only');
  const seed = c.number('seed', { integer: true, min: 0, max: 2 ** 31 - 1 }) ?? 0;
  let expect: CanaryExpect | undefined;
  switch (given[0]) {
    case 'word': {
      const word = c.string('word', { maxLength: 100 });
      if (word !== undefined && /\s/.test(word.trim())) c.problem('word', 'must be one word (use regex for a phrase)');
      else if (word !== undefined) expect = { kind: 'word', word: word.trim(), caseFold: caseFold ?? false };
      break;
    }
    case 'regex': {
      const source = c.string('regex', { maxLength: MAX_REGEX_CHARS });
      if (source === undefined) break;
      try {
        expect = { kind: 'regex', source, regex: new RegExp(source, 'u') };
      } catch (err) {
        c.problem('regex', `is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`);
      }
      break;
    }
    case 'json_schema': {
      const schema = readSchema(c, 'json_schema', true);
      if (schema) expect = { kind: 'json_schema', schema, validator: new Validator(schema as Schema, '2020-12', false) };
      break;
    }
    default:
      expect = readToolCall(c);
  }
  return expect && { expect, seed };
}

/** One line for the plan: what the canary expects. */
export function describeCanary(c: Canary): string {
  const e = c.expect;
  switch (e.kind) {
    case 'word':
      return `the word ${JSON.stringify(e.word)}${e.caseFold ? ' (any case)' : ' (exact)'}`;
    case 'regex':
      return `text matching /${e.source}/`;
    case 'json_schema':
      return `JSON matching its schema (properties: ${Object.keys(isRecord(e.schema.properties) ? e.schema.properties : {}).join(', ') || 'none'})`;
    default:
      return `a call of ${e.name}(${JSON.stringify(e.arguments)})`;
  }
}

/** Input tokens a canary adds to a probe (its schema or tool, about four characters a token), for the plan's cost. */
export function canaryInputTokens(c: Canary): number {
  const e = c.expect;
  const sent = e.kind === 'json_schema' ? e.schema : e.kind === 'tool_call' ? e.parameters : undefined;
  return sent ? Math.ceil(JSON.stringify(sent).length / 4) + 16 : 0;
}
