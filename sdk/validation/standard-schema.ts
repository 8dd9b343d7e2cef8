/**
 * The Standard Schema v1 interface (https://standardschema.dev), written out so the SDK
 * needs no dependency: zod (3.24+), valibot (1.0+), arktype (2.0+) and others expose it as
 * their schemas' `~standard` property, so any of them validates an operation's answer.
 */

/** A schema that implements Standard Schema v1. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  /** The `~standard` property. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  }
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  export interface PathSegment {
    readonly key: PropertyKey;
  }
}

/** True when `v` carries a Standard Schema v1 `~standard` property. */
export function isStandardSchema(v: unknown): v is StandardSchemaV1 {
  if ((typeof v !== 'object' && typeof v !== 'function') || v === null) return false;
  const s = (v as { '~standard'?: { version?: unknown; validate?: unknown } })['~standard'];
  return typeof s === 'object' && s !== null && s.version === 1 && typeof s.validate === 'function';
}

/** The first issue of a failed result, as `path: message`. */
export function describeIssue(issue: StandardSchemaV1.Issue | undefined): string {
  if (!issue) return 'the schema refused the answer';
  const path = (issue.path ?? []).map((p) => String(typeof p === 'object' && p !== null ? (p as StandardSchemaV1.PathSegment).key : p)).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
