/**
 * Building blocks of option validation: each check looks at one value and throws
 * `BB_ERR_SDK_INVALID_OPTIONS` naming the field (`telemetry.url`) and what it must be.
 * Checks compose into object specs; an unknown field is refused too, so a typo
 * (`timeout` for `timeouts`) fails at construction instead of silently doing nothing.
 */
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';

/** Checks `value` found at `path`; throws on a bad value. */
export type Check = (value: unknown, path: string) => void;

/** Throws the invalid-options error for `path`. */
export function invalid(path: string, must: string, value: unknown): never {
  throw new BreakerboxError(SDK_ERROR_CODES.INVALID_OPTIONS, `invalid option ${path}: must be ${must} (got ${describe(value)})`, { field: path });
}

function describe(v: unknown): string {
  if (v === undefined || v === null) return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** A required value: `undefined` is refused, anything else goes to `check`. */
export function required(check: Check, must: string): Check {
  return (v, path) => {
    if (v === undefined) invalid(path, must, v);
    check(v, path);
  };
}

/** An optional number in [min, max]; `int` for integers; `exclusiveMin` for > min. */
export function num(opts: { min?: number; max?: number; int?: boolean; exclusiveMin?: boolean } = {}): Check {
  const min = opts.min ?? 0;
  const max = opts.max ?? Infinity;
  const must = `${opts.int ? 'an integer' : 'a number'} ${opts.exclusiveMin ? '>' : '>='} ${min}${max < Infinity ? ` and <= ${max}` : ''}`;
  return (v, path) => {
    if (v === undefined) return;
    if (typeof v !== 'number' || Number.isNaN(v) || (opts.exclusiveMin ? !(v > min) : !(v >= min)) || v > max || (opts.int && !Number.isInteger(v))) {
      invalid(path, must, v);
    }
  };
}

/** An optional non-empty string. */
export const str: Check = (v, path) => {
  if (v !== undefined && (typeof v !== 'string' || v.length === 0)) invalid(path, 'a non-empty string', v);
};

/** An optional boolean. */
export const bool: Check = (v, path) => {
  if (v !== undefined && typeof v !== 'boolean') invalid(path, 'true or false', v);
};

/** An optional function. */
export const fn: Check = (v, path) => {
  if (v !== undefined && typeof v !== 'function') invalid(path, 'a function', v);
};

/** An optional value among `values`. */
export function oneOf(values: readonly string[]): Check {
  return (v, path) => {
    if (v !== undefined && !values.includes(v as string)) invalid(path, `one of ${values.map((x) => `'${x}'`).join(', ')}`, v);
  };
}

/** An optional http(s) URL string. */
export const url: Check = (v, path) => {
  if (v === undefined) return;
  let ok = typeof v === 'string';
  if (ok) {
    try {
      ok = /^https?:$/.test(new URL(v as string).protocol);
    } catch {
      ok = false;
    }
  }
  if (!ok) invalid(path, 'an http(s) URL string', v);
};

/** Either check passes (the first one's error is reported with both descriptions). */
export function either(a: Check, b: Check, must: string): Check {
  return (v, path) => {
    try {
      a(v, path);
    } catch {
      try {
        b(v, path);
      } catch {
        invalid(path, must, v);
      }
    }
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An optional object with exactly these fields (each checked; unknown ones refused). */
export function obj(fields: Record<string, Check>, opts: { open?: boolean } = {}): Check {
  return (v, path) => {
    if (v === undefined) return;
    if (!isPlainObject(v)) invalid(path || 'options', 'an object', v);
    for (const k of Object.keys(v)) {
      const at = path ? `${path}.${k}` : k;
      const c = fields[k];
      if (c) c(v[k], at);
      else if (!opts.open) invalid(at, `one of the known options (${Object.keys(fields).join(', ')})`, v[k]);
    }
    for (const [k, c] of Object.entries(fields)) if (!(k in v)) c(undefined, path ? `${path}.${k}` : k);
  };
}

/** An optional array whose items pass `item`. */
export function arr(item: Check): Check {
  return (v, path) => {
    if (v === undefined) return;
    if (!Array.isArray(v)) invalid(path, 'an array', v);
    v.forEach((x, i) => item(x, `${path}[${i}]`));
  };
}

/** An optional record whose values pass `value`. */
export function record(value: Check): Check {
  return (v, path) => {
    if (v === undefined) return;
    if (!isPlainObject(v)) invalid(path, 'an object', v);
    for (const [k, x] of Object.entries(v)) value(x, `${path}[${JSON.stringify(k)}]`);
  };
}
