/**
 * The catalogue of secret formats every breakerbox surface removes from free text (a
 * provider's error message in a sample, a prober's log line, a collector log line, a
 * notifier's delivery error). One list, read by `redactText` (`redact-text.ts`).
 *
 * Patterns follow two maintained rule sets, loosened where they demand an exact length (a
 * provider's message may quote a key cut short or masked):
 * - gitleaks' default rules, config/gitleaks.toml (github.com/gitleaks/gitleaks, b58d3f1,
 *   2026-07-22): rule ids `private-key`, `aws-access-token`, `azure-ad-client-secret`,
 *   `gcp-api-key`, `github-pat`, `github-oauth`, `github-app-token`, `github-refresh-token`,
 *   `github-fine-grained-pat`, `gitlab-pat`, `slack-*-token`, `slack-webhook-url`,
 *   `stripe-access-token`, `jwt`, `openai-api-key`, `anthropic-api-key`, `npm-access-token`,
 *   `huggingface-access-token`, `generic-api-key`;
 * - secretlint's rules (github.com/secretlint/secretlint, 18346ba, 2026-08-21):
 *   `@secretlint/secretlint-rule-aws` (AWS_SECRET_ACCESS_KEY names and 40-character values),
 *   `-azure`, `-gcp`, `-slack`, `-basicauth` (credentials in URLs).
 * Formats neither set names (Google OAuth `ya29.` tokens, Azure `AccountKey=` /
 * `SharedAccessSignature=` connection strings, the AI providers' own key prefixes) follow the
 * vendors' documented shapes. The order matters: structured formats (PEM blocks, connection
 * strings, URLs) run before the prefix rules, the `name=value` rule and the long-run rules
 * last, so each secret is cut by the rule that knows it best and the marker appears once.
 */

/** One format: what it is, where it comes from, and how it is found. */
export interface SecretFormat {
  /** Stable name (the gitleaks / secretlint rule it follows, where one exists). */
  id: string;
  /** What it catches, for the docs and the test table. */
  description: string;
  /**
   * The pattern (global). A named group `keep` is text kept before the marker (a field
   * name, a URL scheme), so `aws_secret_access_key=…` reads `aws_secret_access_key=[redacted]`.
   */
  pattern: RegExp;
  /** Lower-case substrings one of which must occur before the pattern runs at all (a cheap pre-check). */
  keywords?: readonly string[];
  /** A pre-check of its own, on the lower-cased text, for formats no keyword announces. */
  may?: (lower: string) => boolean;
  /** A match this says is no secret is kept. */
  keep?: (match: string) => boolean;
}

/** Field names that say their value is a secret: secret, token, password, credential, key, in any case and separator. */
export const SECRET_NAME = /secret|token|passw(?:or)?d|pwd|credential|creds|key|authori[sz]ation|^auth|[\s_.-]auth$|signature|^sig$|^session|cookie/i;
/**
 * Names that contain a secret word but hold no secret: counts (`max_tokens`, `input_tokens`)
 * and references to one (`api_key_env`, `key_file`, `token_type`): their values are kept.
 */
const NOT_SECRET_NAME = /(?:tokens|keys|[_.-](?:count|env|file|path|name|type|length|limit))$|[a-z](?:Count|Env|File|Path|Name|Type|Length|Limit)$/i;

const MIXED = (m: string) => /[0-9]/.test(m) && /[A-Za-z]/.test(m);
/** A run long enough for a bare key (the last three formats): one scan decides for all three. */
const LONG_RUN = /[a-z0-9/+_-]{32,}/;
const hasLongRun = (lower: string) => LONG_RUN.test(lower);
/** A word a secret-named pair's name must hold (cheaper than the pair's own pattern). */
const SECRET_WORD = /secret|token|passw|pwd|credential|creds|key|auth|sig|session|cookie/;

/** The catalogue, in the order it runs. */
export const SECRET_FORMATS: readonly SecretFormat[] = [
  {
    id: 'private-key',
    description: 'PEM private key blocks (RSA, EC, DSA, OPENSSH, PGP, PKCS#8 as in a GCP service-account file), multi-line or with escaped \\n, to its END line or the end of the text',
    pattern: /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|$)/gi,
    keywords: ['private key'],
  },
  {
    id: 'azure-storage-connection-string',
    description: 'Azure connection-string keys: AccountKey=, SharedAccessKey=, SharedSecret= (storage, Service Bus, Event Hubs, IoT Hub)',
    pattern: /(?<keep>\b(?:AccountKey|SharedAccessKey|PrimaryKey|SecondaryKey|SharedSecret)\s*=\s*)[A-Za-z0-9+/=_-]{8,}/gi,
    keywords: ['accountkey', 'sharedaccesskey', 'primarykey', 'secondarykey', 'sharedsecret'],
  },
  {
    id: 'azure-shared-access-signature',
    description: 'Azure SharedAccessSignature=… connection-string parts and `SharedAccessSignature sr=…&sig=…` header values',
    pattern: /(?<keep>\bSharedAccessSignature\s*[= ]\s*)(?!\[redacted\])[^;\s"'<>]+/gi,
    keywords: ['sharedaccesssignature'],
  },
  {
    id: 'azure-sas-signature',
    description: 'Azure SAS token signatures in a URL or query (sig=…)',
    pattern: /(?<keep>(?<![A-Za-z0-9_-])sig=)(?!\[redacted\])[A-Za-z0-9%+/=_-]{8,}/gi,
    keywords: ['sig='],
  },
  {
    id: 'basic-auth-url',
    description: 'user:password@ credentials in a URL (secretlint basicauth)',
    pattern: /(?<keep>\b[a-z][a-z0-9+.-]{1,20}:\/\/)(?!\[redacted\])[^\s:@/?#"'<>]+:[^\s@/?#"'<>]+(?=@)/gi,
    keywords: ['://'],
  },
  {
    id: 'slack-webhook-url',
    description: 'Slack incoming-webhook, workflow and trigger URLs (hooks.slack.com/services/T…/B…/…)',
    pattern: /(?<keep>hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9+/_-]{8,}/gi,
    keywords: ['hooks.slack.com'],
  },
  {
    id: 'authorization-header',
    description: 'Authorization / Proxy-Authorization header values, the scheme (Bearer, Basic, …) included',
    pattern: /(?<keep>\b(?:proxy-)?authori[sz]ation["']?\s*[:=]\s*["']?)(?!\[redacted\])(?:(?:bearer|basic|digest|token|apikey|key|aws4-hmac-sha256)\s+)?[^\s"',;}]{4,}(?:,\s*(?:SignedHeaders|Signature)=[^\s"',;}]+)*/gi,
    keywords: ['authori'],
  },
  {
    id: 'bearer-basic',
    description: 'Bearer and Basic credentials outside a header name',
    pattern: /(?<keep>\b(?:bearer|basic)\s+)(?!\[redacted\])[A-Za-z0-9._~+/=-]{6,}/gi,
    keywords: ['bearer', 'basic'],
  },
  {
    id: 'jwt',
    description: 'JSON Web Tokens (three base64url parts, the first an encoded {")',
    pattern: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
    keywords: ['eyj'],
  },
  {
    id: 'aws-access-token',
    description: 'AWS access key ids (AKIA…, ASIA…, and the other IAM unique-id prefixes)',
    pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b/g,
    keywords: ['a3t', 'akia', 'asia', 'abia', 'acca', 'agpa', 'aida', 'aroa', 'aipa', 'anpa', 'anva'],
  },
  {
    id: 'aws-secret-access-key',
    description: 'aws_secret_access_key / AWS-Secret-Access-Key / secretAccessKey = value, in any case and separator (secretlint aws)',
    pattern: /(?<keep>\b(?:aws)?[\s_.-]?secret[\s_.-]?(?:access)?[\s_.-]?key(?:[\s_.-]?id)?(?:\\?["'])?\s*(?::|=>|=)\s*(?:\\?["'])?)(?!\[redacted\])[A-Za-z0-9/+=]{16,}/gi,
    keywords: ['secret'],
  },
  {
    id: 'azure-ad-client-secret',
    description: 'Azure AD (Entra ID) client secrets (…8Q~…)',
    pattern: /(?<![A-Za-z0-9_~.-])[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
    keywords: ['q~'],
  },
  {
    id: 'gcp-api-key',
    description: 'Google Cloud / Gemini API keys (AIza…)',
    pattern: /\bAIza[0-9A-Za-z_-]{30,}/g,
    keywords: ['aiza'],
  },
  {
    id: 'google-oauth-token',
    description: 'Google OAuth 2.0 access tokens (ya29.…) and refresh tokens (1//…)',
    pattern: /\bya29\.[0-9A-Za-z_-]{20,}|(?<![0-9A-Za-z])1\/\/0[0-9A-Za-z_-]{30,}/g,
    keywords: ['ya29.', '1//'],
  },
  {
    id: 'github-token',
    description: 'GitHub tokens: personal (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server (ghs_), refresh (ghr_), fine-grained (github_pat_)',
    pattern: /\b(?:gh[pousr]_[0-9A-Za-z]{20,}|github_pat_[0-9A-Za-z_]{22,})/g,
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
  },
  {
    id: 'gitlab-token',
    description: 'GitLab tokens: personal (glpat-), pipeline trigger (glptt-), deploy (gldt-), runner (glrt-), and the other gl…- prefixes',
    pattern: /\bgl(?:pat|ptt|dt|rt|cbt|soat|ft|imt|agent|oas)-[0-9A-Za-z_.-]{20,}/g,
    keywords: ['gl'],
  },
  {
    id: 'slack-token',
    description: 'Slack bot, user, app, refresh and legacy tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, xapp-)',
    pattern: /\b(?:xox[abeoprs]|xapp)-[0-9A-Za-z-]{10,}/gi,
    keywords: ['xox', 'xapp-'],
  },
  {
    id: 'stripe-key',
    description: 'Stripe secret, restricted and publishable keys (sk_live_, rk_live_, sk_test_, …) and webhook secrets (whsec_)',
    pattern: /\b(?:(?:sk|rk|pk)_(?:test|live|prod)_[0-9A-Za-z]{10,}|whsec_[0-9A-Za-z]{20,})/g,
    keywords: ['_live_', '_test_', '_prod_', 'whsec_'],
  },
  {
    id: 'anthropic-api-key',
    description: 'Anthropic API and admin keys (sk-ant-api03-…, sk-ant-admin01-…)',
    pattern: /\bsk-ant-[0-9A-Za-z_*-]{8,}/g,
    keywords: ['sk-ant-'],
  },
  {
    id: 'openai-api-key',
    description: 'OpenAI keys (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…, masked sk-…****abcd) and similar sk-/rk-/pk- keys (DeepSeek, Moonshot, OpenRouter)',
    pattern: /\b(?:sk|rk|pk)-[0-9A-Za-z_*-]{8,}/g,
    keywords: ['sk-', 'rk-', 'pk-'],
  },
  {
    id: 'npm-access-token',
    description: 'npm access tokens (npm_…)',
    pattern: /\bnpm_[0-9A-Za-z]{30,}/gi,
    keywords: ['npm_'],
  },
  {
    id: 'huggingface-access-token',
    description: 'Hugging Face user and organisation tokens (hf_…, api_org_…)',
    pattern: /\b(?:hf_[0-9A-Za-z]{20,}|api_org_[0-9A-Za-z]{20,})/g,
    keywords: ['hf_', 'api_org_'],
  },
  {
    id: 'ai-provider-key',
    description: 'Other AI providers\' key prefixes: Groq (gsk_), xAI (xai-), Replicate (r8_), Perplexity (pplx-), NVIDIA (nvapi-), Bedrock API keys (ABSK…)',
    pattern: /\b(?:gsk_|xai-|r8_|pplx-|nvapi-)[0-9A-Za-z_*-]{10,}|\bABSK[A-Za-z0-9+/]{40,}={0,2}/g,
    keywords: ['gsk_', 'xai-', 'r8_', 'pplx-', 'nvapi-', 'absk'],
  },
  {
    id: 'secret-name-value',
    description: 'key=value, key: value and "key": "value" pairs whose name says secret, token, password/passwd/pwd, credential, key, api-key, auth, signature, session or cookie, in any case and separator (gitleaks generic-api-key)',
    // The name is checked by `SECRET_NAME` in `redact-text.ts`; the value is a quoted string or a bare run.
    // Quotes may be escaped (`\"token\": \"…\"`: a JSON body quoted inside a JSON message).
    pattern: /(?<![A-Za-z0-9_.-])(?<q>\\?["']|)(?<name>[A-Za-z][A-Za-z0-9_.-]{0,60}(?: [A-Za-z][A-Za-z0-9_-]{0,30}){0,3})\k<q>(?<sep>\s*(?::|=>|=)\s*)(?!\[redacted\]|\/\/)(?<value>\\"(?:[^"\\]|\\[^"])*\\"|\\'(?:[^'\\]|\\[^'])*\\'|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s"'\\,;&}\]{[][^\s"'\\,;&}\]]{3,})/g,
    may: (lower) => (lower.includes(':') || lower.includes('=')) && SECRET_WORD.test(lower),
  },
  {
    id: 'email',
    description: 'e-mail addresses (personal data, not a secret, cut all the same)',
    pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
    keywords: ['@'],
  },
  {
    id: 'aws-secret-bare',
    description: 'bare 40-character AWS secret access keys (base64 with / and +; secretlint aws)',
    pattern: /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
    may: hasLongRun,
    keep: (m) => !(/[0-9]/.test(m) && /[A-Z]/.test(m) && /[a-z]/.test(m)),
  },
  {
    id: 'long-hex',
    description: 'hex runs of 32 characters or more (Azure OpenAI and many gateways\' keys, key ids)',
    pattern: /\b[A-Fa-f0-9]{32,}\b/g,
    may: hasLongRun,
  },
  {
    id: 'long-token',
    description: 'base64-like runs of 40 characters or more mixing letters and digits (Together, Fireworks and other bare keys); words without a digit are kept',
    pattern: /\b[A-Za-z0-9_-]{40,}\b/g,
    may: hasLongRun,
    keep: (m) => !MIXED(m),
  },
];

/** Whether a `name=value` pair's name says its value is a secret (and not a count). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name);
}
