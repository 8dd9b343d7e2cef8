/**
 * Requests the fetch wrapper forwards unprotected ("passthrough", issue 35): nothing passes
 * silently. Each is counted per host, path family (`pathFamilyOf`) and method into the next
 * telemetry batch's `passthrough` field, and announced once per host and path family through
 * the instance's warnings (`BB_WARN_SDK_PASSTHROUGH`), saying what was seen and how to protect it.
 *
 * Bounded whatever the application sends: the tally folds entries past its cap into one
 * `(other)` entry, and at most `MAX_ANNOUNCED_FAMILIES` families are announced.
 */
import { PassthroughTally, pathFamilyOf } from '@breakerbox/protocol';

/** The warning code of a passthrough announcement (sdk/README.md, section 5). */
export const PASSTHROUGH_WARNING_CODE = 'BB_WARN_SDK_PASSTHROUGH';
/** Most host + path families announced per instance; later ones are still counted. */
export const MAX_ANNOUNCED_FAMILIES = 200;

/** The announcement of one host and path family. */
export function passthroughWarning(method: string, host: string, family: string, why: string): string {
  return `breakerbox: ${method} ${host}${family} was forwarded unprotected (${why}): no breaker, retry, fallback or telemetry key, ` +
    'only a passthrough count. The SDK protects OpenAI-compatible, Anthropic, Gemini, Vertex AI, Bedrock and Azure OpenAI model calls; ' +
    `see sdk/README.md "What bb.fetch protects" (this warning is given once per host and path family)`;
}

/** Counts and announces passthrough requests for one SDK instance. */
export class PassthroughNotes {
  /** What the next telemetry batch carries (read by the telemetry sender). */
  readonly tally = new PassthroughTally();
  private readonly announced = new Set<string>();

  /**
   * @param counting whether counts are kept (only with a collector to send them to)
   * @param warn the instance's once-only warning channel
   */
  constructor(
    private readonly counting: boolean,
    private readonly warn: (message: string, code: string) => void,
  ) {}

  /** Counts one request forwarded unprotected and announces its family the first time. Never throws. */
  note(url: URL, method: string, why: string): void {
    try {
      const family = pathFamilyOf(url);
      const verb = (method || 'GET').toUpperCase();
      if (this.counting) this.tally.add(url.host, family, verb, why);
      const id = `${url.host}\u0000${family}`;
      if (this.announced.has(id) || this.announced.size >= MAX_ANNOUNCED_FAMILIES) return;
      this.announced.add(id);
      this.warn(passthroughWarning(verb, url.host, family, why), PASSTHROUGH_WARNING_CODE);
    } catch {
      // Counting must never reach the request it counts.
    }
  }
}
