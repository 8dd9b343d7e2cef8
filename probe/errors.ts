/**
 * The one catalog of errors the prober raises. Codes are stable (`BB_ERR_PROBE_<WHAT>`);
 * messages are for humans and never carry a secret (they pass through the redactor
 * before any log line is written).
 */
export const PROBE_ERROR_CODES = {
  /**
   * The configuration file is missing, unreadable, not YAML/JSON, or fails validation;
   * `problems` holds one line per mistake naming the target and the field (a canary's too:
   * `target "x" (targets[0]): canary.regex: is not a valid regular expression: …`).
   */
  CONFIG: 'BB_ERR_PROBE_CONFIG',
  /** Command-line flags are wrong (unknown flag, missing value). */
  USAGE: 'BB_ERR_PROBE_USAGE',
  /** An environment variable a target or the collector needs is not set. */
  ENV: 'BB_ERR_PROBE_ENV',
  /** A probe exceeded one of its own timeouts (connect, first byte, total). */
  TIMEOUT: 'BB_ERR_PROBE_TIMEOUT',
  /** The collector refused or could not take a batch. */
  PUSH: 'BB_ERR_PROBE_PUSH',
  /** Options given to a prober component were invalid (a programming error). */
  INVALID_OPTIONS: 'BB_ERR_PROBE_INVALID_OPTIONS',
} as const;

export type ProbeErrorCode = (typeof PROBE_ERROR_CODES)[keyof typeof PROBE_ERROR_CODES];

/** An error raised by the prober; `problems` lists every config problem, one line each. */
export class ProbeError extends Error {
  readonly code: ProbeErrorCode;
  readonly problems: readonly string[];

  constructor(code: ProbeErrorCode, message: string, problems: readonly string[] = [], cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ProbeError';
    this.code = code;
    this.problems = problems;
  }
}

/** True when `err` is a prober error, optionally with the given code. */
export function isProbeError(err: unknown, code?: ProbeErrorCode): err is ProbeError {
  return err instanceof ProbeError && (code === undefined || err.code === code);
}
