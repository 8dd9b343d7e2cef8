import { createRedactor } from '@breakerbox/protocol';
import type { NotifierConfig } from './types.ts';

/**
 * A notifier URL safe to show: scheme and host only. Slack and many webhook URLs carry
 * their secret in the path or query, so nothing past the host is ever shown.
 */
export function redactUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    const rest = u.pathname !== '/' || u.search !== '' || u.hash !== '';
    return `${u.protocol}//${u.host}${rest ? '/…' : ''}`;
  } catch {
    return '[invalid url]';
  }
}

/** The secrets a notifier holds: its URL (and the parts of it), routing key, header values. */
export function secretsOf(n: NotifierConfig, url: string): string[] {
  const secrets = new Set<string>([url]);
  if (n.url) secrets.add(n.url);
  try {
    const u = new URL(url);
    if (u.pathname.length > 1) secrets.add(u.pathname);
    if (u.search) secrets.add(u.search);
    if (u.username) secrets.add(u.username);
    if (u.password) secrets.add(u.password);
  } catch {
    // An unparsable URL is still redacted as a whole string above.
  }
  if (n.routing_key) secrets.add(n.routing_key);
  for (const value of Object.values(n.headers ?? {})) if (value.length >= 4) secrets.add(value);
  return [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * Replaces every secret in a text (a delivery's error, which quotes the receiver's answer)
 * with "[redacted]": the notifier's own `secrets`, then every format of the protocol's
 * catalogue (a receiver echoing a token back, a proxy quoting a header).
 */
export function scrub(text: string, secrets: string[]): string {
  return createRedactor(secrets)(text);
}
