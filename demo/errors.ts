/**
 * The demo's error catalog: every error it raises on purpose has a stable code.
 */
/** Stable codes of the demo's errors. */
export const DEMO_ERROR_CODES = {
  BAD_FLAG: 'BB_ERR_DEMO_BAD_FLAG',
  DASHBOARD_BUILD: 'BB_ERR_DEMO_DASHBOARD_BUILD',
  PROBER_START: 'BB_ERR_DEMO_PROBER_START',
  GATE: 'BB_ERR_DEMO_GATE',
  CATALOG: 'BB_ERR_DEMO_CATALOG',
} as const;

/** One of the codes above. */
export type DemoErrorCode = (typeof DEMO_ERROR_CODES)[keyof typeof DEMO_ERROR_CODES];

/** An error of the demo, with its code. */
export class DemoError extends Error {
  override name = 'DemoError';
  constructor(
    readonly code: DemoErrorCode,
    message: string,
  ) {
    super(message);
  }
}
