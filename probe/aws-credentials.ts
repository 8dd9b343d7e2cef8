/**
 * AWS credentials for the `bedrock-converse` kind, found as the AWS SDKs find them: the
 * environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), else the
 * profile `AWS_PROFILE` (default `default`) of the shared credentials file
 * (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`). The region is `AWS_REGION`
 * (or `AWS_DEFAULT_REGION`). The keys only ever sign requests inside the prober: they are
 * added to the log redactor and never logged, stored or sent.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Credentials the prober signs Bedrock probes with. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** `AWS_REGION` / `AWS_DEFAULT_REGION`, the signing region when the target names none. */
  region?: string;
  /** Where they came from, for messages: `environment` or `profile NAME`. */
  source: string;
}

/** The `[profile]` section of an INI credentials file, or undefined. */
function profileOf(text: string, profile: string): Record<string, string> | undefined {
  let current: string | undefined;
  const out: Record<string, Record<string, string>> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+|\s+$/g, '');
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[\s*(?:profile\s+)?([^\]]+?)\s*\]$/.exec(line);
    if (section) {
      current = section[1]!;
      out[current] ??= {};
      continue;
    }
    const kv = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
    if (kv && current) out[current]![kv[1]!.toLowerCase()] = kv[2]!;
  }
  return out[profile];
}

/** The credentials in `env` or the shared credentials file, or undefined when there are none. */
export function loadAwsCredentials(env: Record<string, string | undefined>, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): AwsCredentials | undefined {
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  const withRegion = (c: AwsCredentials): AwsCredentials => (region ? { ...c, region } : c);
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return withRegion({
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
      source: 'environment',
    });
  }
  const profile = env.AWS_PROFILE || 'default';
  let text: string;
  try {
    text = readFile(env.AWS_SHARED_CREDENTIALS_FILE || join(env.HOME || homedir(), '.aws', 'credentials'));
  } catch {
    return undefined;
  }
  const p = profileOf(text, profile);
  if (!p?.aws_access_key_id || !p.aws_secret_access_key) return undefined;
  return withRegion({
    accessKeyId: p.aws_access_key_id,
    secretAccessKey: p.aws_secret_access_key,
    ...(p.aws_session_token ? { sessionToken: p.aws_session_token } : {}),
    source: `profile ${profile}`,
  });
}

/** The secrets of `c`, for the log redactor. */
export function awsSecrets(c: AwsCredentials | undefined): string[] {
  return c ? [c.accessKeyId, c.secretAccessKey, ...(c.sessionToken ? [c.sessionToken] : [])] : [];
}
