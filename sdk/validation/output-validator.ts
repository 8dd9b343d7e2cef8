/**
 * How an operation declares that its answer is validated, and the one check that runs it:
 * a JSON Schema (an object), a validator function, or a Standard Schema (zod, valibot,
 * arktype — anything with `~standard`). A failed check is the `invalid_output` class.
 */
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { jsonSchemaProblem, type JsonSchema } from './json-schema.ts';
import { describeIssue, isStandardSchema, type StandardSchemaV1 } from './standard-schema.ts';

/**
 * A validator function: `true` (or `undefined`) accepts the answer; `false` or a string (the
 * reason) refuses it; a throw refuses it with the thrown message. May be async.
 */
export type OutputCheckFn<T = unknown> = (value: T) => boolean | string | undefined | Promise<boolean | string | undefined>;

/** How an answer is validated: a Standard Schema, a validator function, or a JSON Schema. */
export type OutputValidator<T = unknown> = StandardSchemaV1 | OutputCheckFn<T> | Exclude<JsonSchema, boolean>;

/** True when `v` can be used as an `OutputValidator` (for option checks). */
export function isOutputValidator(v: unknown): boolean {
  return isStandardSchema(v) || typeof v === 'function' || (typeof v === 'object' && v !== null && !Array.isArray(v));
}

/** Why `value` fails `validator`, or undefined when it passes. Never throws. */
export async function outputProblem<T>(validator: OutputValidator<T>, value: T): Promise<string | undefined> {
  try {
    if (isStandardSchema(validator)) {
      const r = await validator['~standard'].validate(value);
      return r.issues ? describeIssue(r.issues[0]) : undefined;
    }
    if (typeof validator === 'function') {
      const r = await (validator as OutputCheckFn<T>)(value);
      if (r === true || r === undefined) return undefined;
      return typeof r === 'string' && r ? r : 'the validator refused the answer';
    }
    return jsonSchemaProblem(validator as JsonSchema, value);
  } catch (err) {
    return `the validator threw: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** The error of an answer that failed validation (`BB_ERR_SDK_INVALID_OUTPUT`, class `invalid_output`). */
export function invalidOutput(problem: string, upstreamRequestId?: string): BreakerboxError {
  return new BreakerboxError(SDK_ERROR_CODES.INVALID_OUTPUT, `answer failed validation: ${problem.slice(0, 300)}`, {
    errorClass: 'invalid_output',
    providerReason: 'invalid_output',
    upstreamRequestId,
  });
}

/** Throws `invalidOutput` when `value` fails `validator`. */
export async function assertValidOutput<T>(validator: OutputValidator<T>, value: T, upstreamRequestId?: string): Promise<void> {
  const problem = await outputProblem(validator, value);
  if (problem !== undefined) throw invalidOutput(problem, upstreamRequestId);
}
