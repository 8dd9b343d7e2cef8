/**
 * How a `breakerbox` command fails: one line on stderr naming the flag, setting or URL it is
 * about, never a stack trace, and an exit code a script can branch on — 2 for a usage error
 * (a flag, an argument or a setting the command was given), 1 for a run that failed (the
 * collector or the database unreachable or refusing, a drill that did not pass).
 */
import { ConfigError } from './config/load.ts';
import { BreakerboxError } from './errors.ts';

/** Exit code of a command given something it cannot use. */
export const EXIT_USAGE = 2;
/** Exit code of a command that ran and failed. */
export const EXIT_FAILED = 1;

/** A usage error: what the command was given is wrong (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The collector a command talks to could not be reached or did not answer (exit 1). */
export class CollectorUnreachable extends Error {
  override name = 'CollectorUnreachable';
}

/** Why a fetch failed, in a few words: undici's `cause` (`connect ECONNREFUSED 127.0.0.1:1`) rather than "fetch failed". */
function networkReason(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'no answer in time';
  return e?.cause?.message ?? e?.cause?.code ?? e?.message ?? String(err);
}

/**
 * The base URL a command was given (`--url` or BREAKERBOX_URL), as a URL that paths resolve
 * under; a usage error naming `flag` when it is not an http(s) URL.
 */
export function collectorBase(text: string, flag = '--url'): URL {
  let url: URL;
  try {
    url = new URL(text.endsWith('/') ? text : `${text}/`);
  } catch {
    throw new UsageError(`${flag} must be the collector's base URL, e.g. http://127.0.0.1:7070, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag} must be an http:// or https:// URL, got "${text}"`);
  return url;
}

/** `fetch` for a command: a network failure becomes one CollectorUnreachable line naming the URL. */
export async function collectorFetch(url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    throw new CollectorUnreachable(`cannot reach the collector at ${url.origin} (${init.method ?? 'GET'} ${url.pathname}): ${networkReason(err)}`);
  }
}

/** The name of the flag a `node:util` parseArgs error is about (`--minutes`), if it says. */
const flagOf = (message: string) => /'(--?[\w-]+)/.exec(message)?.[1];

/**
 * `node:util` parseArgs reads `--minutes -1` as a flag without its value: a value that
 * looks like a negative number is joined to its flag (`--minutes=-1`), so the command's own
 * check names what is wrong with it.
 */
export function joinNegativeValues(args: readonly string[], stringFlags: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = args[i + 1];
    if (a.startsWith('--') && !a.includes('=') && stringFlags.has(a.slice(2)) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** The line and exit code of a failure; `help` is the command whose `--help` to point at. */
export function cliFailure(err: unknown, help: string): { line: string; code: number } {
  const e = err as { code?: string; message?: string };
  const see = `(see "breakerbox ${help} --help")`;
  if (err instanceof UsageError || err instanceof ConfigError) return { line: `breakerbox: ${e.message}`, code: EXIT_USAGE };
  switch (e?.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return { line: `breakerbox: ${help}: unknown option ${flagOf(e.message ?? '') ?? ''} ${see}`.replace(/ {2,}/g, ' '), code: EXIT_USAGE };
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = flagOf(e.message ?? '');
      const what = /argument missing|ambiguous/.test(e.message ?? '') ? 'needs a value' : 'takes no value';
      return { line: `breakerbox: ${help}: ${flag ?? 'an option'} ${what} ${see}`, code: EXIT_USAGE };
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return { line: `breakerbox: ${help}: unexpected argument ${/'([^']*)'/.exec(e.message ?? '')?.[1] ?? ''} ${see}`, code: EXIT_USAGE };
    default:
      break;
  }
  if (err instanceof CollectorUnreachable || err instanceof BreakerboxError) return { line: `breakerbox: ${e.message}`, code: EXIT_FAILED };
  // Not foreseen: still one line (the stack only on request, for a bug report).
  const message = (e?.message ?? String(err)).split('\n')[0];
  return { line: `breakerbox: ${help}: failed: ${message}${process.env.BREAKERBOX_DEBUG ? `\n${(err as Error)?.stack ?? ''}` : ' (BREAKERBOX_DEBUG=1 prints the stack)'}`, code: EXIT_FAILED };
}
