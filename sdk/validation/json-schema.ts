/**
 * A small JSON Schema checker for answers (structured outputs): the keywords model
 * providers accept in a strict output schema — `type`, `properties`, `required`,
 * `additionalProperties`, `items`, `prefixItems`, `enum`, `const`, `anyOf`, `oneOf`, `allOf`, `not`,
 * `$ref` to `#/$defs/…` / `#/definitions/…`, `minimum`/`maximum` (and exclusive), `multipleOf`,
 * `minLength`/`maxLength`, `pattern`, `minItems`/`maxItems`, `uniqueItems`,
 * `minProperties`/`maxProperties`. Other keywords (`format`, `description`, …) are ignored,
 * as JSON Schema says. It interprets the schema (no code generation), stops at the first
 * problem, and bounds its depth, so a hostile answer cannot make it run away.
 */

/** A JSON Schema (draft 2020-12 / draft 7 subset above); TypeBox schemas are ones. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

const MAX_DEPTH = 64;

/** The first problem of `value` against `schema`, as `path: what`, or undefined when it is valid. */
export function jsonSchemaProblem(schema: JsonSchema, value: unknown): string | undefined {
  return check(schema, value, '$', schema, 0);
}

type Obj = Record<string, unknown>;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(t: string, v: unknown): boolean {
  const actual = typeOf(v);
  return t === actual || (t === 'number' && actual === 'integer');
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as Obj);
  const kb = Object.keys(b as Obj);
  return ka.length === kb.length && ka.every((k) => equal((a as Obj)[k], (b as Obj)[k]));
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === '#') return root;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!m || typeof root !== 'object') return undefined;
  const defs = root[m[1]!] as Obj | undefined;
  const name = decodeURIComponent(m[2]!).replace(/~1/g, '/').replace(/~0/g, '~');
  return defs && Object.hasOwn(defs, name) ? (defs[name] as JsonSchema) : undefined;
}

function check(schema: JsonSchema, v: unknown, path: string, root: JsonSchema, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return `${path}: nested deeper than ${MAX_DEPTH}`;
  if (schema === true) return undefined;
  if (schema === false) return `${path}: not allowed`;
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as Obj;
  if (typeof s.$ref === 'string') {
    const target = resolveRef(root, s.$ref);
    if (target === undefined) return `${path}: unresolvable $ref ${s.$ref}`;
    const p = check(target, v, path, root, depth + 1);
    if (p) return p;
  }
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => typeMatches(t, v))) return `${path}: must be ${types.join(' or ')} (got ${typeOf(v)})`;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => equal(e, v))) return `${path}: must be one of ${JSON.stringify(s.enum).slice(0, 120)}`;
  if ('const' in s && !equal(s.const, v)) return `${path}: must be ${JSON.stringify(s.const).slice(0, 80)}`;
  if (typeof v === 'number') {
    const p = numberProblem(s, v, path);
    if (p) return p;
  }
  if (typeof v === 'string') {
    const n = [...v].length;
    if (typeof s.minLength === 'number' && n < s.minLength) return `${path}: shorter than ${s.minLength}`;
    if (typeof s.maxLength === 'number' && n > s.maxLength) return `${path}: longer than ${s.maxLength}`;
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(v)) return `${path}: does not match ${s.pattern}`;
  }
  if (Array.isArray(v)) {
    const p = arrayProblem(s, v, path, root, depth);
    if (p) return p;
  } else if (typeof v === 'object' && v !== null) {
    const p = objectProblem(s, v as Obj, path, root, depth);
    if (p) return p;
  }
  return combinatorProblem(s, v, path, root, depth);
}

function numberProblem(s: Obj, v: number, path: string): string | undefined {
  if (typeof s.minimum === 'number' && v < s.minimum) return `${path}: below ${s.minimum}`;
  if (typeof s.maximum === 'number' && v > s.maximum) return `${path}: above ${s.maximum}`;
  if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum) return `${path}: not above ${s.exclusiveMinimum}`;
  if (typeof s.exclusiveMaximum === 'number' && v >= s.exclusiveMaximum) return `${path}: not below ${s.exclusiveMaximum}`;
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && Math.abs(v / s.multipleOf - Math.round(v / s.multipleOf)) > 1e-9) return `${path}: not a multiple of ${s.multipleOf}`;
  return undefined;
}

function arrayProblem(s: Obj, v: unknown[], path: string, root: JsonSchema, depth: number): string | undefined {
  if (typeof s.minItems === 'number' && v.length < s.minItems) return `${path}: fewer than ${s.minItems} items`;
  if (typeof s.maxItems === 'number' && v.length > s.maxItems) return `${path}: more than ${s.maxItems} items`;
  const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as JsonSchema[]) : [];
  for (let i = 0; i < v.length; i++) {
    const item = i < prefix.length ? prefix[i] : (s.items as JsonSchema | undefined);
    if (item === undefined) continue;
    const p = check(item, v[i], `${path}[${i}]`, root, depth + 1);
    if (p) return p;
  }
  if (s.uniqueItems === true) for (let i = 1; i < v.length; i++) for (let j = 0; j < i; j++) if (equal(v[i], v[j])) return `${path}: items ${j} and ${i} are equal`;
  return undefined;
}

function objectProblem(s: Obj, v: Obj, path: string, root: JsonSchema, depth: number): string | undefined {
  const keys = Object.keys(v);
  if (typeof s.minProperties === 'number' && keys.length < s.minProperties) return `${path}: fewer than ${s.minProperties} properties`;
  if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties) return `${path}: more than ${s.maxProperties} properties`;
  if (Array.isArray(s.required)) for (const r of s.required as string[]) if (!Object.hasOwn(v, r)) return `${path}: missing required property "${r}"`;
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  for (const k of keys) {
    const at = `${path}.${k}`;
    if (Object.hasOwn(props, k)) {
      const p = check(props[k]!, v[k], at, root, depth + 1);
      if (p) return p;
    } else if (s.additionalProperties !== undefined) {
      if (s.additionalProperties === false) return `${path}: unexpected property "${k}"`;
      const p = check(s.additionalProperties as JsonSchema, v[k], at, root, depth + 1);
      if (p) return p;
    }
  }
  return undefined;
}

function combinatorProblem(s: Obj, v: unknown, path: string, root: JsonSchema, depth: number): string | undefined {
  if (Array.isArray(s.allOf)) for (const sub of s.allOf as JsonSchema[]) {
    const p = check(sub, v, path, root, depth + 1);
    if (p) return p;
  }
  if (Array.isArray(s.anyOf) && !(s.anyOf as JsonSchema[]).some((sub) => !check(sub, v, path, root, depth + 1))) return `${path}: matches none of anyOf`;
  if (Array.isArray(s.oneOf) && (s.oneOf as JsonSchema[]).filter((sub) => !check(sub, v, path, root, depth + 1)).length !== 1) return `${path}: must match exactly one of oneOf`;
  if (s.not !== undefined && !check(s.not as JsonSchema, v, path, root, depth + 1)) return `${path}: matches a schema it must not`;
  return undefined;
}
