/**
 * Every `breakerbox` command (the list in server/cli.ts), given a bad flag or value and
 * pointed at a collector or database that does not answer, fails with exactly one line on
 * stderr — the flag, value or URL it is about, no stack trace — and exit code 2 for usage,
 * 1 for a run that failed. Each case is the real bin in its own process.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../server/cli.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'breakerbox.js');
const KEY = JSON.stringify({ provider: 'openai', endpoint: 'chat', model: 'gpt-4o' });
const ID = '00000000-0000-4000-8000-000000000000';

/** What each command needs besides where it goes, so the failure is the one under test. */
const ARGS: Record<string, string[]> = {
  server: [], migrate: [], 'token create': ['--name', 'ci', '--rights', 'read'], 'token list': [], 'token revoke': ['ci'],
  'fleet drain': ['--key', KEY, '--reason', 'r', '--expires', '30m'], 'fleet release': ['--key', KEY, '--reason', 'r'], 'fleet list': ['--key', KEY],
  'drill run': ['--service', 'drafts', '--minutes', '1'], 'drill stop': [ID], 'drill show': [ID], 'drill list': [], probe: ['--config', 'probe.yaml'],
};
/** Where each command goes: the collector's API (--url) or the database (--db). */
const VIA_API = (c: string) => c.startsWith('fleet') || c.startsWith('drill');

function cli(args: string[]): Promise<{ code: number | null; stderr: string; lines: string[] }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', BREAKERBOX_LOG_LEVEL: 'silent' } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr, lines: stderr.split('\n').filter((l) => l.trim() !== '') })));
}

/** Runs cases a few at a time (each starts a Node.js process). */
async function all<T, R>(items: T[], f: (t: T) => Promise<R>, width = 3): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  }));
  return out;
}

const STACK = /^\s+at |node:internal|\bError: .*\n\s+at |triggerUncaughtException|\{$/m;

describe('breakerbox CLI errors are one line', { timeout: 240_000 }, () => {
  let dead: number;
  beforeAll(async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    dead = (s.address() as { port: number }).port;
    await new Promise<void>((r) => s.close(() => r()));
  });

  it('has a case for every command server/cli.ts lists', () => {
    expect(COMMANDS.map((c) => c.join(' ')).sort()).toEqual(Object.keys(ARGS).sort());
  });

  it('an unknown flag: one line naming it, exit 2, for every command', async () => {
    const results = await all([...COMMANDS], async (c) => ({ c: c.join(' '), r: await cli([...c, ...ARGS[c.join(' ')]!, '--bogus-flag']) }));
    for (const { c, r } of results) {
      expect(r.lines, c).toHaveLength(1);
      expect(r.lines[0], c).toMatch(/--bogus-flag/);
      expect(r.stderr, c).not.toMatch(STACK);
      expect(r.code, c).toBe(2);
    }
  });

  it('a bad or missing value: one line naming the flag, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['drill', 'run', '--service', 'drafts', '--minutes', '-1', '--url', `http://127.0.0.1:${dead}`, '--token', 't'], /--minutes must be a positive number, got "-1"/],
      [['drill', 'run', '--service', 'drafts', '--minutes'], /--minutes needs a value/],
      [['drill', 'run', '--service', 'drafts', '--url', 'collector.local', '--token', 't'], /--url must be .*"collector\.local"/],
      [['fleet', 'drain', '--key', KEY, '--reason', 'r', '--expires', 'tomorrowish', '--url', `http://127.0.0.1:${dead}`, '--token', 't'], /--expires must be a duration/],
      [['server', '--port'], /--port needs a value/],
      [['token', 'create', '--name', 'ci', '--rights', 'write', '--db', ':memory:'], /--rights: unknown right "write"/],
      [['drill', 'launch'], /unknown drill command "launch"/],
      [['deploy'], /unknown command "deploy"/],
      [['probe', '--shutdown-timeout', 'soon', '--config', 'x.yaml'], /--shutdown-timeout/],
    ];
    const results = await all(cases, async ([args, text]) => ({ args, text, r: await cli(args) }));
    for (const { args, text, r } of results) {
      const c = args.join(' ');
      expect(r.lines, c).toHaveLength(1);
      expect(r.lines[0], c).toMatch(text);
      expect(r.stderr, c).not.toMatch(STACK);
      expect(r.code, c).toBe(2);
    }
  });

  it('an unreachable collector or database: one line naming its URL, exit 1, for every command that reaches one', async () => {
    const reaching = COMMANDS.filter((c) => c[0] !== 'probe');
    const results = await all(reaching, async (c) => {
      const id = c.join(' ');
      const where = VIA_API(id) ? ['--url', `http://127.0.0.1:${dead}`, '--token', 'tok'] : ['--db', `postgres://bb:hunter2@127.0.0.1:${dead}/bb`];
      return { c: id, r: await cli([...c, ...ARGS[id]!, ...where]) };
    });
    for (const { c, r } of results) {
      expect(r.lines, c).toHaveLength(1);
      expect(r.lines[0], c).toContain(`127.0.0.1:${dead}`);
      expect(r.lines[0], c).not.toContain('hunter2');
      expect(r.stderr, c).not.toMatch(STACK);
      expect(r.code, c).toBe(1);
    }
  });
});
