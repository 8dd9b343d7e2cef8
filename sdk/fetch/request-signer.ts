/**
 * Re-signing a SigV4-signed request (Bedrock) that a fallback or a shadow re-targets. A
 * SigV4 signature covers the method, the path, the query, the signed headers (`host`
 * among them) and the body's hash, so a request sent to another model (another path) or
 * another base URL (another host, maybe another region) must be signed again, or AWS
 * refuses it. The SDK signs with the signer the caller gives (`signer` in the fetch
 * options) — AWS's own `@smithy/signature-v4`, never a signer of its own — and never sends
 * a re-targeted request with the caller's now-wrong signature.
 */
/** `@smithy/types`' `HttpRequest`, the shape `SignatureV4#sign` takes and returns (structurally). */
export interface SignableRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * A request signer: `new SignatureV4({ credentials, region, service: 'bedrock', sha256 })`
 * from `@smithy/signature-v4` fits it as it is.
 */
export interface RequestSigner {
  sign(request: SignableRequest, options?: { signingRegion?: string; signingService?: string }): Promise<{ headers: Record<string, string> }>;
}

/** Headers of the caller's signature, dropped before signing again (the signer adds its own). */
const SIGNATURE_HEADERS = ['authorization', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256', 'content-length'];

/** Whether a request carries a SigV4 signature. */
export function isSigV4Signed(headers: Headers): boolean {
  return /^AWS4-HMAC-SHA256\s/i.test(headers.get('authorization') ?? '');
}

/** `req`'s headers, signed again by `signer` for its URL and `bodyText` (in `region` when the target names one). */
export async function resign(req: { url: URL; headers: Headers }, bodyText: string, signer: RequestSigner, region: string | undefined): Promise<Headers> {
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => {
    if (!SIGNATURE_HEADERS.includes(k)) headers[k] = v;
  });
  headers.host = req.url.host;
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of req.url.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: req.url.protocol,
      hostname: req.url.hostname,
      ...(req.url.port ? { port: Number(req.url.port) } : {}),
      path: req.url.pathname,
      query,
      headers,
      body: bodyText,
    },
    region ? { signingRegion: region } : undefined,
  );
  const out = new Headers();
  for (const [k, v] of Object.entries(signed.headers)) if (k.toLowerCase() !== 'host') out.set(k, v);
  return out;
}
