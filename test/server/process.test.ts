import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/sqlite/database.ts';
import { batch, oneOfEach, tempDir, windowEvent } from './helpers.ts';
import { ADMIN, BIN, exited, startProcess as start } from './process-harness.ts';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

const send = (url: string, body: unknown) =>
  request(`${url}/v1/telemetry`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(body),
  });

const startProcess = (db: string) => start(db, cleanups);

describe('the server process', () => {
  it('loses nothing of a batch acknowledged just before kill -9', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const db = join(tmp.dir, 'bbx.db');
    const { child, url } = await startProcess(db);
    const events = Array.from({ length: 500 }, (_, i) => windowEvent({ calls: 120 + i }));
    const b = batch(events);
    const res = await send(url, b);
    expect(res.statusCode).toBe(200);
    // Kill the moment the acknowledgement arrives: no graceful close, no checkpoint.
    child.kill('SIGKILL');
    await res.body.json();
    await exited(child);
    const reopened = openDatabase(db, { readonly: true });
    try {
      expect(reopened.prepare('SELECT COUNT(*) AS n FROM window_events').get()).toEqual({ n: 500 });
      expect(reopened.prepare('SELECT COUNT(*) AS n FROM batches WHERE batch_id = ?').get(b.batch_id)).toEqual({ n: 1 });
      expect(reopened.prepare('SELECT SUM(calls) AS n FROM key_minutes').get()).toEqual({ n: 120 * 500 + (499 * 500) / 2 });
    } finally {
      reopened.close();
    }
  });

  it('keeps its data across a graceful restart and exits 0 on SIGTERM', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const db = join(tmp.dir, 'bbx.db');
    const first = await startProcess(db);
    const b = batch(oneOfEach());
    expect((await send(first.url, b)).statusCode).toBe(200);
    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);

    const second = await startProcess(db);
    const keys = await request(`${second.url}/api/keys`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(((await keys.body.json()) as { keys: unknown[] }).keys).toHaveLength(1);
    const again = await send(second.url, b);
    expect(await again.body.json()).toEqual({ accepted: 0, duplicate: true });
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
  });

  it('prints a first admin token once, on the first start only', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const db = join(tmp.dir, 'bbx.db');
    const run = () => {
      const child = spawn(process.execPath, [BIN, 'server', '--port', '0', '--db', db], {
        env: { ...process.env, BREAKERBOX_ADMIN_TOKEN: '', BREAKERBOX_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      cleanups.push(() => child.kill('SIGKILL'));
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      return new Promise<string>((resolve) => {
        child.stdout.on('data', () => {
          if (out.includes('listening on')) {
            child.kill('SIGTERM');
            child.once('exit', () => resolve(out));
          }
        });
      });
    };
    const first = await run();
    const token = /admin token \(shown once, save it now\): (bbx_\S+)/.exec(first)?.[1];
    expect(token).toMatch(/^bbx_[\w-]{40,}$/);
    const second = await run();
    expect(second).not.toContain('admin token');
    const list = spawnSync(process.execPath, [BIN, 'token', 'list', '--db', db], { encoding: 'utf8' });
    expect(list.stdout).toMatch(/^admin\tadmin\t/m);
    expect(list.stdout).not.toContain(token!);
  });
});
