import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector, type TestCollector } from './server-harness.ts';
import { sqlOf } from '../support/sql.ts';

let collector: TestCollector;
beforeAll(async () => {
  collector = await startCollector();
});
afterAll(async () => collector?.close());

const signIn = (token: string) =>
  fetch(`${collector.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
const cookieOf = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!;

describe('dashboard sessions', () => {
  it('turns a read token into an httpOnly SameSite=Strict cookie that reads the API', async () => {
    const res = await signIn(collector.tokens.read);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'test-read', rights: ['read'] });
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^bb_session=[\w-]{40,};/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toContain(collector.tokens.read);
    const keys = await fetch(`${collector.url}/api/keys`, { headers: { cookie: cookieOf(res) } });
    expect(keys.status).toBe(200);
  });

  it('stores only a hash of the session id', async () => {
    const res = await signIn(collector.tokens.read);
    const id = cookieOf(res).split('=')[1]!;
    const rows = sqlOf(collector.server.app).prepare('SELECT id_hash FROM sessions').all() as { id_hash: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.id_hash === id)).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.id_hash))).toBe(true);
  });

  it('refuses an unknown token with 401 and an ingest-only token with 403, setting no cookie', async () => {
    const bad = await signIn('bbx_not-a-real-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    const ingest = await signIn(collector.tokens.ingest);
    expect(ingest.status).toBe(403);
    expect((await ingest.json()).error.code).toBe('BB_ERR_AUTH_FORBIDDEN');
    expect(ingest.headers.get('set-cookie')).toBeNull();
  });

  it('says who is signed in, and nobody after sign-out', async () => {
    const cookie = cookieOf(await signIn(collector.tokens.admin));
    const who = await fetch(`${collector.url}/api/session`, { headers: { cookie } });
    expect(who.status).toBe(200);
    expect((await who.json()).rights).toEqual(['ingest', 'read', 'admin']);
    const out = await fetch(`${collector.url}/api/session`, { method: 'DELETE', headers: { cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/bb_session=;.*Max-Age=0/);
    expect((await fetch(`${collector.url}/api/session`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${collector.url}/api/keys`, { headers: { cookie } })).status).toBe(401);
  });

  it('ends the sessions of a revoked token', async () => {
    const { secret } = await collector.server.app.storage.tokens.create('short-lived', ['read']);
    const cookie = cookieOf(await signIn(secret));
    expect((await fetch(`${collector.url}/api/keys`, { headers: { cookie } })).status).toBe(200);
    await collector.server.app.storage.tokens.revoke('short-lived');
    expect((await fetch(`${collector.url}/api/keys`, { headers: { cookie } })).status).toBe(401);
  });

  it('lets a Bearer header win over the cookie', async () => {
    const cookie = cookieOf(await signIn(collector.tokens.read));
    const res = await fetch(`${collector.url}/api/keys`, { headers: { cookie, authorization: 'Bearer wrong' } });
    expect(res.status).toBe(401);
  });
});
