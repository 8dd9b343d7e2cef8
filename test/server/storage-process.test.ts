import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { applyMigrations } from '../../server/storage/sqlite/migrations.ts';
import { batch, tempDir, windowEvent } from './helpers.ts';
import { ADMIN, BIN, eventually, exited, startProcess } from './process-harness.ts';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

const send = (url: string, body: unknown) =>
  request(`${url}/v1/telemetry`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(body),
  });

/**
 * How to start the server so that a file's mode binds it as it binds any unprivileged user.
 * Not root: as this user. Root: still as root (so it reads the checkout wherever it was
 * cloned, even under a private 0700 directory, and whoever owns it), but without
 * CAP_DAC_OVERRIDE — the capability that lets root write a file its mode forbids. Never as
 * another user, who may not be able to read the checkout.
 */
function modesBind(): { wrap: readonly string[] } | { skip: string } {
  if (process.getuid?.() !== 0) return { wrap: [] };
  const setpriv = spawnSync('setpriv', ['--bounding-set=-dac_override', '--inh-caps=-all', '--', 'true'], { stdio: 'ignore' });
  if (setpriv.status === 0) return { wrap: ['setpriv', '--bounding-set=-dac_override', '--inh-caps=-all', '--'] };
  return { skip: 'running as root, and setpriv (util-linux) cannot drop CAP_DAC_OVERRIDE here: root would write any file whatever its mode' };
}
const unprivileged = modesBind();
const wrap = 'wrap' in unprivileged ? unprivileged.wrap : [];

/** Runs `breakerbox server` expecting it to refuse to start; resolves with its exit code and output. */
function failedStart(db: string, prefix: readonly string[] = []): Promise<{ code: number | null; out: string }> {
  const [command, ...args] = [...prefix, process.execPath, BIN, 'server', '--port', '0'];
  const child = spawn(command!, args, {
    env: { ...process.env, BREAKERBOX_DB: db, BREAKERBOX_ADMIN_TOKEN: ADMIN, BREAKERBOX_LOG_LEVEL: 'warn', HOME: '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return exited(child).then((code) => ({ code, out }));
}

function seededDb(dir: string): string {
  const db = join(dir, 'bbx.db');
  const handle = openDatabase(db);
  applyMigrations(handle);
  handle.close();
  return db;
}

describe('storage faults against a real server process', () => {
  it('turns /readyz red, answers 503, logs one line and rescues the data when the database file is deleted', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const db = join(tmp.dir, 'bbx.db');
    const config = join(tmp.dir, 'config.json');
    writeFileSync(config, JSON.stringify({ storage: { check_interval_ms: 200, retry_after_s: 2 } }));
    const server = await startProcess(db, cleanups, { env: { BREAKERBOX_CONFIG: config } });
    const kept = batch(Array.from({ length: 50 }, (_, i) => windowEvent({ calls: 200 + i })));
    expect((await send(server.url, kept)).statusCode).toBe(200);

    rmSync(db);
    await eventually(async () => (await request(`${server.url}/readyz`)).statusCode === 503, '/readyz turns red');
    const ready = await request(`${server.url}/readyz`);
    expect(((await ready.body.json()) as { reason: string }).reason).toContain('was deleted');
    for (let i = 0; i < 3; i++) {
      const res = await send(server.url, batch([windowEvent()]));
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      await res.body.dump();
    }
    const faultLines = () => server.output().split('\n').filter((l) => l.includes('storage fault:'));
    expect(faultLines()).toHaveLength(1);
    expect(faultLines()[0]).toContain(db);

    await eventually(() => server.output().includes('was copied to'), 'the rescue copy is written');
    const rescued = readdirSync(tmp.dir).find((f) => f.startsWith('bbx.db.rescued-'));
    expect(rescued).toBeDefined();
    const copy = openDatabase(join(tmp.dir, rescued!), { readonly: true });
    try {
      expect(copy.prepare('SELECT COUNT(*) AS n FROM window_events').get()).toEqual({ n: 50 });
      expect(copy.prepare('SELECT COUNT(*) AS n FROM batches WHERE batch_id = ?').get(kept.batch_id)).toEqual({ n: 1 });
    } finally {
      copy.close();
    }
    expect(existsSync(db)).toBe(false);
  });

  it.skipIf('skip' in unprivileged)('turns /readyz red and answers 503 while its database file is unwritable, and recovers once it is writable again', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const db = seededDb(tmp.dir);
    const config = join(tmp.dir, 'config.json');
    writeFileSync(config, JSON.stringify({ storage: { check_interval_ms: 200, retry_after_s: 1 } }));
    const server = await startProcess(db, cleanups, { env: { BREAKERBOX_CONFIG: config }, wrap });
    expect((await send(server.url, batch([windowEvent()]))).statusCode).toBe(200);

    chmodSync(db, 0o444);
    await eventually(async () => (await request(`${server.url}/readyz`)).statusCode === 503, '/readyz turns red');
    const ready = await request(`${server.url}/readyz`);
    expect(((await ready.body.json()) as { reason: string }).reason).toContain('no longer writable');
    const refused = await send(server.url, batch([windowEvent()]));
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    await refused.body.dump();

    chmodSync(db, 0o644);
    await eventually(async () => (await request(`${server.url}/readyz`)).statusCode === 200, '/readyz turns green again');
    await eventually(async () => {
      const res = await send(server.url, batch([windowEvent()]));
      await res.body.dump();
      return res.statusCode === 200;
    }, 'ingest is accepted again');
  });

  it.skipIf('skip' in unprivileged)('exits with one line naming the path and what to do when started on a read-only database', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const db = seededDb(tmp.dir);
    chmodSync(db, 0o444);
    const { code, out } = await failedStart(db, wrap);
    expect(code).toBe(1);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`cannot write the database ${db}`);
    expect(lines[0]).toContain('write access');
    expect(out).not.toContain('SqliteError:');
    expect(out).not.toContain('    at ');
  });

  it('exits with one line naming the path and what to do when started on a file that is not a database', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const db = join(tmp.dir, 'bbx.db');
    writeFileSync(db, 'this is not an SQLite database, just some text that happens to sit at the path\n'.repeat(100));
    const { code, out } = await failedStart(db);
    expect(code).toBe(1);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${db} is not a usable SQLite database`);
    expect(lines[0]).toContain('restore it from a backup');
  });
});
