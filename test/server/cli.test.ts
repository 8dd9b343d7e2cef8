import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../server/config/load.ts';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { createTokenStore } from '../../server/storage/sqlite/token-store.ts';
import { tempDir } from './helpers.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'breakerbox.js');
// Each case starts the CLI process a few times; on a loaded machine one start takes seconds.
const SPAWNS = { timeout: 120_000 };
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
}
function tmpDb() {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  return join(tmp.dir, 'nested', 'folder', 'bbx.db');
}

describe('breakerbox CLI', SPAWNS, () => {
  it('creates a token whose secret is printed once and verifies, lists it without the secret, and revokes it', () => {
    const db = tmpDb();
    const created = cli(['token', 'create', '--name', 'ci', '--rights', 'ingest,read', '--db', db]);
    expect(created.status).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^bbx_/);
    const list = cli(['token', 'list', '--db', db]);
    expect(list.stdout).toMatch(/^ci\tingest,read\t.*active$/m);
    expect(list.stdout).not.toContain(secret);

    const handle = openDatabase(db);
    const stored = handle.prepare('SELECT hash FROM tokens WHERE name = ?').get('ci') as { hash: string };
    expect(stored.hash).not.toContain(secret);
    expect(createTokenStore(handle).verify(secret)?.rights.has('read')).toBe(true);
    handle.close();

    expect(cli(['token', 'revoke', 'ci', '--db', db]).status).toBe(0);
    expect(cli(['token', 'list', '--db', db]).stdout).toMatch(/^ci\t.*revoked/m);
    expect(cli(['token', 'revoke', 'ci', '--db', db]).status).toBe(1);
  });

  it('refuses an unknown right, naming it, as a usage error (exit 2)', () => {
    const res = cli(['token', 'create', '--name', 'x', '--rights', 'ingest,write', '--db', tmpDb()]);
    expect(res.status).toBe(2);
    expect(res.stderr.trim()).toBe('breakerbox: token create: --rights: unknown right "write" (allowed: ingest, read, admin)');
  });

  it('drains a key fleet-wide with a reason and expiry, lists it as audited, releases it, and refuses a second release', () => {
    const db = tmpDb();
    const key = JSON.stringify({ provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo:free@v2', region: 'us-east' });
    const missing = cli(['fleet', 'drain', '--db', db, '--key', key, '--reason', 'bad answers']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--expires is required');
    const drained = cli(['fleet', 'drain', '--db', db, '--key', key, '--reason', 'bad answers since 14:02', '--expires', '30m']);
    expect(drained.status, drained.stderr).toBe(0);
    expect(drained.stdout).toMatch(/^drain\t\S+\tactive\tuntil \S+\tby cli:\S+\tapplied on 0\tbad answers since 14:02/);
    expect(cli(['fleet', 'release', '--db', db, '--key', key, '--reason', 'provider fixed it']).stdout).toMatch(/^release\t.*provider fixed it/);
    const list = cli(['fleet', 'list', '--db', db, '--key', key]).stdout.trim().split('\n');
    expect(list.map((l) => l.split('\t')[0] + ' ' + l.split('\t')[2])).toEqual(['release active', 'drain ended']);
    const again = cli(['fleet', 'release', '--db', db, '--key', key, '--reason', 'x']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('no drain of this key is running');
  });

  it('migrates and reports what it applied, then that nothing is left', () => {
    const db = tmpDb();
    expect(cli(['migrate', '--db', db]).stdout).toMatch(/^applied \d+ migration\(s\): 001-initial\.sql/);
    expect(cli(['migrate', '--db', db]).stdout).toMatch(/^nothing to apply/);
  });

  it('prints help for every command', () => {
    for (const args of [['--help'], ['server', '--help'], ['migrate', '--help'], ['token', '--help'], ['fleet', '--help']]) {
      const res = cli(args);
      expect(res.status, args.join(' ')).toBe(0);
      expect(res.stdout).toMatch(/^usage: breakerbox/);
    }
  });

  it('stops with one line naming a bad setting, exit 2', () => {
    const res = cli(['server'], { BREAKERBOX_PORT: 'seventy', BREAKERBOX_DB: tmpDb() });
    expect(res.status).toBe(2);
    expect(res.stderr.trim()).toBe('breakerbox: BREAKERBOX_PORT: must be an integer, got "seventy"');
  });
});

describe('configuration', () => {
  it('applies defaults, then the file, then environment, then flags', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, 'bbx.yaml');
    writeFileSync(file, 'port: 8000\nretention:\n  raw_days: 3\n');
    const config = loadConfig({ env: { BREAKERBOX_CONFIG: file, BREAKERBOX_PORT: '9000' }, flags: { host: '0.0.0.0' } });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', db: './data/breakerbox.db', retention: { raw_days: 3, rollup_days: 90 } });
    expect(config.ingest.body_limit_bytes).toBe(1024 * 1024);
  });

  it('names the file and the setting for an out-of-range value', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, 'bbx.json');
    writeFileSync(file, JSON.stringify({ retention: { raw_days: -1 } }));
    expect(() => loadConfig({ env: { BREAKERBOX_CONFIG: file } })).toThrowError(new ConfigError(`${file}: retention.raw_days: must be a number > 0 and <= 3650, got -1`));
  });

  it('refuses a leader hold time not above the renewal interval, naming both settings', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, 'c.yaml');
    writeFileSync(file, 'storage:\n  leader_renew_ms: 2000\n  leader_hold_ms: 2000\n');
    expect(() => loadConfig({ env: { BREAKERBOX_CONFIG: file } })).toThrow(
      new ConfigError(`${file}: storage.leader_hold_ms: must be more than storage.leader_renew_ms (2000), got 2000: a leader would stop acting before its next renewal, and leadership would flap`),
    );
    writeFileSync(file, 'storage:\n  leader_renew_ms: 2000\n  leader_hold_ms: 2001\n');
    expect(loadConfig({ env: { BREAKERBOX_CONFIG: file } }).storage.leader_hold_ms).toBe(2001);
  });

  it('refuses an unknown setting in the file', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, 'bbx.yaml');
    writeFileSync(file, 'prot: 80\n');
    expect(() => loadConfig({ env: { BREAKERBOX_CONFIG: file } })).toThrowError(/bbx\.yaml: prot: unknown setting/);
  });

  it('sets memory.heap_growing_percent to 50 unless told, and names the setting for a bad value', () => {
    expect(loadConfig({ env: {} }).memory.heap_growing_percent).toBe(50);
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, 'bbx.yaml');
    writeFileSync(file, 'memory:\n  heap_growing_percent: -5\n');
    expect(() => loadConfig({ env: { BREAKERBOX_CONFIG: file } })).toThrowError(/memory\.heap_growing_percent: must be an integer >= 0/);
  });

  it('refuses a port out of range from a flag', () => {
    expect(() => loadConfig({ env: {}, flags: { port: '70000' } })).toThrowError('--port: must be an integer >= 0 and <= 65535, got 70000');
  });
});
