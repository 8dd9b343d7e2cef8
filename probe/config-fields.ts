/**
 * A small typed reader over one object of the config file: each accessor returns the
 * value or `undefined`, and reports a problem naming the full field path when the
 * value is present but wrong. Keeps the validators declarative and the messages uniform.
 */
import { parseDuration } from './duration.ts';

/** Receives one problem: the field path (e.g. `request.max_tokens`) and what is wrong. */
export type ReportProblem = (field: string, message: string) => void;

/** Shows a config value in a message without ever echoing a long string in full. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 12)}…` : value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'a list' : 'an object';
}

/** True for a plain (non-array) object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Bounds {
  min?: number;
  max?: number;
  required?: boolean;
}

/** Reads fields of one config object and reports problems under `prefix`. */
export class FieldReader {
  readonly obj: Record<string, unknown>;
  private readonly prefix: string;
  private readonly report: ReportProblem;

  constructor(obj: Record<string, unknown>, prefix: string, report: ReportProblem) {
    this.obj = obj;
    this.prefix = prefix;
    this.report = report;
  }

  /** The full path of a field of this object. */
  path(name: string): string {
    return this.prefix ? `${this.prefix}.${name}` : name;
  }

  /** Reports a problem on a field of this object. */
  problem(name: string, message: string): void {
    this.report(this.path(name), message);
  }

  has(name: string): boolean {
    return this.obj[name] !== undefined && this.obj[name] !== null;
  }

  private missing(name: string, required: boolean | undefined): boolean {
    if (this.has(name)) return false;
    if (required) this.problem(name, 'is required');
    return true;
  }

  string(name: string, opts: { required?: boolean; pattern?: RegExp; hint?: string; maxLength?: number } = {}): string | undefined {
    if (this.missing(name, opts.required)) return undefined;
    const value = this.obj[name];
    if (typeof value !== 'string' || value.trim() === '') {
      this.problem(name, `must be a non-empty string, got ${show(value)}`);
      return undefined;
    }
    if (opts.maxLength !== undefined && value.length > opts.maxLength) {
      this.problem(name, `must be at most ${opts.maxLength} characters`);
      return undefined;
    }
    if (opts.pattern && !opts.pattern.test(value)) {
      this.problem(name, `${opts.hint ?? `must match ${opts.pattern}`}, got ${show(value)}`);
      return undefined;
    }
    return value;
  }

  number(name: string, opts: Bounds & { integer?: boolean } = {}): number | undefined {
    if (this.missing(name, opts.required)) return undefined;
    const value = this.obj[name];
    const kind = opts.integer ? 'an integer' : 'a number';
    if (typeof value !== 'number' || !Number.isFinite(value) || (opts.integer && !Number.isInteger(value))) {
      this.problem(name, `must be ${kind}, got ${show(value)}`);
      return undefined;
    }
    if ((opts.min !== undefined && value < opts.min) || (opts.max !== undefined && value > opts.max)) {
      this.problem(name, `must be ${kind} between ${opts.min ?? '-∞'} and ${opts.max ?? '∞'}, got ${value}`);
      return undefined;
    }
    return value;
  }

  boolean(name: string, opts: { required?: boolean } = {}): boolean | undefined {
    if (this.missing(name, opts.required)) return undefined;
    const value = this.obj[name];
    if (typeof value !== 'boolean') {
      this.problem(name, `must be true or false, got ${show(value)}`);
      return undefined;
    }
    return value;
  }

  /** A duration: milliseconds as a number, or a string like `500ms`, `30s`, `5m`. */
  duration(name: string, opts: Bounds = {}): number | undefined {
    if (this.missing(name, opts.required)) return undefined;
    const value = this.obj[name];
    const ms = parseDuration(value);
    if (ms === undefined) {
      this.problem(name, `must be a duration (milliseconds, or e.g. "500ms", "30s", "5m"), got ${show(value)}`);
      return undefined;
    }
    if ((opts.min !== undefined && ms < opts.min) || (opts.max !== undefined && ms > opts.max)) {
      this.problem(name, `must be between ${opts.min ?? 0} ms and ${opts.max ?? '∞'} ms, got ${ms} ms`);
      return undefined;
    }
    return ms;
  }

  /** A nested object, as a reader; reports a problem when present but not an object. */
  object(name: string, opts: { required?: boolean } = {}): FieldReader | undefined {
    if (this.missing(name, opts.required)) return undefined;
    const value = this.obj[name];
    if (!isRecord(value)) {
      this.problem(name, `must be an object, got ${show(value)}`);
      return undefined;
    }
    return new FieldReader(value, this.path(name), this.report);
  }

  /** Reports every field not in `allowed` (typos must not pass silently). */
  rejectUnknown(allowed: readonly string[]): void {
    for (const name of Object.keys(this.obj)) {
      if (!allowed.includes(name)) this.problem(name, `unknown field (allowed: ${allowed.join(', ')})`);
    }
  }
}
