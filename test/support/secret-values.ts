/**
 * One realistic (fake but well-formed) value of every secret format in the protocol's
 * catalogue (`protocol/secret-formats.ts`), each as a provider or a receiver would write it
 * in a message: the redaction tests push every row through the shared redactor and through
 * every surface (samples, the database file, collector logs, notifiers, the prober's logs)
 * and look for each row's `secrets` afterwards. The values are generated from fixed seeds in
 * each format's alphabet and length, so none is a real credential.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}-_`;
const HEX = '0123456789abcdef';
const UPPER32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** `n` characters of `alphabet`, the same for the same `seed` (a linear congruential generator). */
export function fill(alphabet: string, n: number, seed: number): string {
  let x = seed >>> 0;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out += alphabet[(x >>> 8) % alphabet.length];
  }
  return out;
}

/** A 40-character AWS secret access key: base64 with a `/` and a `+`, mixed case and digits. */
const awsSecret = (seed: number) => `${fill(ALNUM, 9, seed)}/${fill(ALNUM, 15, seed + 1)}+${fill(B64, 11, seed + 2)}Q7a`;
const b64url = (s: string) => Buffer.from(s).toString('base64url');

/** One row: the format that must catch it, where it appears, and what must never survive. */
export interface SecretRow {
  /** The `SecretFormat.id` of the catalogue that recognises it. */
  format: string;
  label: string;
  /** The text as it appears in a message. */
  text: string;
  /** Substrings that must not survive redaction. */
  secrets: string[];
}

const row = (format: string, label: string, text: string, ...secrets: string[]): SecretRow => ({ format, label, text, secrets });

const AWS_KEY_ID = `AKIA${fill(UPPER32, 16, 1)}`;
const AWS_STS_ID = `ASIA${fill(UPPER32, 16, 2)}`;
const AWS_S1 = awsSecret(3);
const AWS_S2 = awsSecret(4);
const AWS_S3 = awsSecret(5);
const AWS_S4 = awsSecret(6);
const AWS_BARE = awsSecret(7);
const PEM_LINES = [fill(B64, 64, 8), fill(B64, 64, 9), fill(B64, 40, 10)];
const GCP_PEM = fill(B64, 64, 11);
const GCP_KEY_ID = fill(HEX, 40, 12);
const OPENSSH = fill(B64, 70, 13);
const AZURE_ACCOUNT_KEY = `${fill(B64, 86, 14)}==`;
const AZURE_SB_KEY = `${fill(B64, 43, 15)}=`;
const AZURE_SIG = encodeURIComponent(`${fill(B64, 43, 16)}=`);
const AZURE_URL_SIG = encodeURIComponent(`${fill(B64, 43, 17)}=`);
const AZURE_AD = `${fill(ALNUM, 3, 18)}8Q~${fill(`${ALNUM}_~.-`, 34, 19)}`;
const AZURE_OPENAI = fill(HEX, 32, 20);
const JWT = `${b64url('{"alg":"RS256","typ":"JWT"}')}.${b64url('{"sub":"svc-42","aud":"inference","exp":1767225600}')}.${fill(B64URL, 43, 21)}`;

/** Every format of the catalogue, at least once. */
export const SECRET_ROWS: readonly SecretRow[] = [
  row('aws-access-token', 'AWS access key id', `The security token included in the request is invalid: ${AWS_KEY_ID}`, AWS_KEY_ID),
  row('aws-access-token', 'AWS temporary (STS) key id', `credential=${AWS_STS_ID}/20261203/us-east-1/bedrock/aws4_request`, AWS_STS_ID),
  row('aws-secret-access-key', 'aws_secret_access_key=', `bad config: aws_secret_access_key=${AWS_S1}`, AWS_S1),
  row('aws-secret-access-key', 'AWS_SECRET_ACCESS_KEY: "…"', `env AWS_SECRET_ACCESS_KEY: "${AWS_S2}" rejected`, AWS_S2),
  row('aws-secret-access-key', 'Aws-Secret-Access-Key = …', `header Aws-Secret-Access-Key = ${AWS_S3}; retry`, AWS_S3),
  row('aws-secret-access-key', '"secretAccessKey":"…"', `{"accessKeyId":"${AWS_KEY_ID}","secretAccessKey":"${AWS_S4}"}`, AWS_S4, AWS_KEY_ID),
  row('aws-secret-bare', 'bare 40-character AWS secret', `signature does not match for secret ${AWS_BARE} (check your clock)`, AWS_BARE),
  row('private-key', 'PEM RSA private key, multi-line', `key rejected:\n-----BEGIN RSA PRIVATE KEY-----\n${PEM_LINES.join('\n')}\n-----END RSA PRIVATE KEY-----\n`, ...PEM_LINES),
  row('private-key', 'GCP service-account JSON (private_key, escaped newlines)', `invalid credentials {"type": "service_account", "private_key_id": "${GCP_KEY_ID}", "private_key": "-----BEGIN PRIVATE KEY-----\\n${GCP_PEM}\\n-----END PRIVATE KEY-----\\n"}`, GCP_PEM, GCP_KEY_ID),
  row('private-key', 'OpenSSH private key, cut before its END line', `-----BEGIN OPENSSH PRIVATE KEY-----\n${OPENSSH}`, OPENSSH),
  row('gcp-api-key', 'Google API key (AIza…)', `API key not valid. Please pass a valid API key. (?key=AIza${fill(B64URL, 35, 22)})`, `AIza${fill(B64URL, 35, 22)}`),
  row('google-oauth-token', 'Google OAuth access token (ya29.)', `Request had invalid authentication credentials: ya29.${fill(B64URL, 120, 23)}`, `ya29.${fill(B64URL, 120, 23)}`, fill(B64URL, 120, 23)),
  row('azure-storage-connection-string', 'Azure storage connection string (AccountKey=)', `DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=${AZURE_ACCOUNT_KEY};EndpointSuffix=core.windows.net`, AZURE_ACCOUNT_KEY),
  row('azure-storage-connection-string', 'Azure Service Bus connection string (SharedAccessKey=)', `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${AZURE_SB_KEY}`, AZURE_SB_KEY),
  row('azure-shared-access-signature', 'Azure SharedAccessSignature header', `SharedAccessSignature sr=acme.servicebus.windows.net&sig=${AZURE_SIG}&se=1767225600&skn=RootManageSharedAccessKey expired`, AZURE_SIG, decodeURIComponent(AZURE_SIG)),
  row('azure-sas-signature', 'Azure SAS URL (sig=)', `403 for https://acme.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&se=2026-12-31T00:00:00Z&sig=${AZURE_URL_SIG}`, AZURE_URL_SIG, decodeURIComponent(AZURE_URL_SIG)),
  row('azure-ad-client-secret', 'Azure AD (Entra ID) client secret', `AADSTS7000215: Invalid client secret provided: ${AZURE_AD}`, AZURE_AD),
  row('long-hex', 'Azure OpenAI api-key (32 hex)', `Access denied due to invalid subscription key ${AZURE_OPENAI}`, AZURE_OPENAI),
  row('github-token', 'GitHub personal access token (ghp_)', `Bad credentials: ghp_${fill(ALNUM, 36, 24)}`, `ghp_${fill(ALNUM, 36, 24)}`),
  row('github-token', 'GitHub OAuth token (gho_)', `token gho_${fill(ALNUM, 36, 25)} revoked`, `gho_${fill(ALNUM, 36, 25)}`),
  row('github-token', 'GitHub app installation token (ghs_)', `x-access-token:ghs_${fill(ALNUM, 36, 26)}`, `ghs_${fill(ALNUM, 36, 26)}`),
  row('github-token', 'GitHub fine-grained token (github_pat_)', `github_pat_${fill(ALNUM, 22, 27)}_${fill(ALNUM, 59, 28)} lacks scope`, `${fill(ALNUM, 22, 27)}_${fill(ALNUM, 59, 28)}`),
  row('gitlab-token', 'GitLab personal access token (glpat-)', `401 Unauthorized for glpat-${fill(B64URL, 20, 29)}`, `glpat-${fill(B64URL, 20, 29)}`),
  row('slack-token', 'Slack bot token (xoxb-)', `invalid_auth: xoxb-${fill('0123456789', 12, 30)}-${fill('0123456789', 13, 31)}-${fill(ALNUM, 24, 32)}`, fill(ALNUM, 24, 32)),
  row('slack-token', 'Slack user token (xoxp-)', `xoxp-${fill('0123456789', 12, 33)}-${fill('0123456789', 12, 34)}-${fill('0123456789', 13, 35)}-${fill(HEX, 32, 36)}`, fill(HEX, 32, 36)),
  row('slack-webhook-url', 'Slack incoming webhook URL', `no_service: https://hooks.slack.com/services/T${fill(UPPER32, 8, 37)}/B${fill(UPPER32, 10, 38)}/${fill(ALNUM, 24, 39)}`, fill(ALNUM, 24, 39), `B${fill(UPPER32, 10, 38)}`),
  row('stripe-key', 'Stripe secret key (sk_live_)', `Invalid API Key provided: sk_live_${fill(ALNUM, 24, 40)}`, `sk_live_${fill(ALNUM, 24, 40)}`, fill(ALNUM, 24, 40)),
  row('stripe-key', 'Stripe restricted key (rk_live_)', `rk_live_${fill(ALNUM, 24, 41)} does not have the required permissions`, fill(ALNUM, 24, 41)),
  row('jwt', 'JSON Web Token', `token expired: ${JWT}`, JWT, JWT.split('.')[2]!),
  row('basic-auth-url', 'basic-auth credentials in a URL', `cannot reach https://deploy-bot:n0t-S0-s3cret!@registry.example.com/v2/`, 'n0t-S0-s3cret!', 'deploy-bot:'),
  row('openai-api-key', 'OpenAI project key (sk-proj-)', `Incorrect API key provided: sk-proj-${fill(B64URL, 58, 42)}T3BlbkFJ${fill(B64URL, 58, 43)}.`, fill(B64URL, 58, 42), fill(B64URL, 58, 43)),
  row('openai-api-key', 'OpenAI key, masked by the provider', `Incorrect API key provided: sk-proj-${fill(ALNUM, 4, 44)}********************${fill(ALNUM, 4, 45)}.`, `${fill(ALNUM, 4, 44)}****`, `****${fill(ALNUM, 4, 45)}`),
  row('anthropic-api-key', 'Anthropic API key (sk-ant-api03-)', `invalid x-api-key sk-ant-api03-${fill(B64URL, 93, 46)}AA`, fill(B64URL, 93, 46)),
  row('npm-access-token', 'npm access token (npm_)', `//registry.npmjs.org/:_authToken=npm_${fill(ALNUM, 36, 47)}`, `npm_${fill(ALNUM, 36, 47)}`),
  row('huggingface-access-token', 'Hugging Face token (hf_)', `Invalid credentials in Authorization header hf_${fill(LOWER, 34, 48)}`, `hf_${fill(LOWER, 34, 48)}`),
  row('ai-provider-key', 'Groq key (gsk_)', `Invalid API Key gsk_${fill(ALNUM, 52, 49)}`, `gsk_${fill(ALNUM, 52, 49)}`),
  row('ai-provider-key', 'xAI key (xai-)', `Incorrect API key provided: xai-${fill(ALNUM, 80, 50)}`, fill(ALNUM, 80, 50)),
  row('long-token', 'bare 64-character key (Together, Fireworks)', `invalid api key ${fill(ALNUM, 64, 51)}`, fill(ALNUM, 64, 51)),
  row('authorization-header', 'Authorization header with its scheme', `upstream said: Authorization: Bearer opaque.${fill(ALNUM, 10, 52)}~tok rejected`, `opaque.${fill(ALNUM, 10, 52)}`, 'Bearer opaque'),
  row('bearer-basic', 'Bearer credential in prose', `the bearer ${fill(ALNUM, 8, 53)}.${fill(ALNUM, 6, 54)} is unknown`, `${fill(ALNUM, 8, 53)}.${fill(ALNUM, 6, 54)}`),
  row('secret-name-value', 'password=… (no known shape)', `login failed for password=correct-horse-battery`, 'correct-horse-battery'),
  row('secret-name-value', '"client_secret": "…" with spaces', `{"client_id": "app", "client_secret": "my very secret phrase"}`, 'my very secret phrase'),
  row('secret-name-value', 'X-API-KEY: … header', `X-API-KEY: k3y-7Hq!x not allowed`, 'k3y-7Hq!x'),
  row('secret-name-value', 'Passwd: … in another case', `Passwd: p@ssw0rd! is wrong`, 'p@ssw0rd!'),
  row('secret-name-value', "db-credential='…'", `db-credential='Sup3r_Secr3t' expired`, 'Sup3r_Secr3t'),
  row('secret-name-value', 'SESSION_TOKEN=…', `SESSION_TOKEN=abc-123-def, try again`, 'abc-123-def'),
  row('secret-name-value', 'Api-Key=… in a query', `GET /v1/models?Api-Key=zz9-plural-z-alpha&x=1`, 'zz9-plural-z-alpha'),
  row('email', 'e-mail address', `user jane.doe+ai@customer.example is not allowed`, 'jane.doe+ai@customer.example'),
];
