/**
 * Configuration review: a fallback that shares the primary's provider and region — or
 * the same host with the same credential — fails together with it in a provider-wide
 * incident, so it is not a fallback for the incidents that matter most. Such pairs are
 * reported as warnings at construction and in the `config` telemetry event.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import { keyLabel } from '@breakerbox/protocol';

/** A fallback as the review sees it: its key, and where known the host and credential it uses. */
export interface ReviewedRoute {
  key: BreakerKey;
  /** Host the route sends to (fetch wrapper routes). */
  host?: string;
  /** An opaque id of the credential (never the credential itself). */
  credentialId?: string;
}

/** Warnings for the fallbacks of `primary` that would fail with it. */
export function reviewFallbacks(primary: ReviewedRoute, fallbacks: readonly ReviewedRoute[]): string[] {
  const warnings: string[] = [];
  for (const f of fallbacks) {
    const sameProviderRegion = f.key.provider === primary.key.provider && (f.key.region ?? '') === (primary.key.region ?? '');
    const sameHostAndKey =
      f.host !== undefined && f.host === primary.host && f.credentialId !== undefined && f.credentialId === primary.credentialId;
    if (sameProviderRegion || sameHostAndKey) {
      const where = sameHostAndKey && !sameProviderRegion ? `host ${f.host} with the same API key` : `provider "${f.key.provider}"${f.key.region ? ` and region "${f.key.region}"` : ' (no distinct region)'}`;
      warnings.push(
        `fallback ${keyLabel(f.key)} shares ${where} with the primary ${keyLabel(primary.key)}: it will fail together with it in a provider-wide incident`,
      );
    }
  }
  return warnings;
}
