/**
 * The packages as someone else installs them: every workspace packed, the tarballs
 * installed into scratch apps in a temp folder, then used as the README tells each role —
 * the SDK from ESM, CommonJS and a strict TypeScript project; the collector started from
 * its bin, serving its dashboard; the prober alone answering --help and --check.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledSqlite, createApp, installedPackages, localPrebuilds, node20, packAll, run, scratchDir, startAndWait, type Packed } from './scratch.ts';

const scratch = scratchDir('packaging');
let packed: Map<string, Packed>;
const tarball = (name: string) => packed.get(name)!.filename;
afterAll(() => scratch.cleanup(), 180_000);

/**
 * The three scratch apps, installed side by side once the tarballs are packed (npm waits on
 * its cache and the disk as much as on the CPU); each group below awaits its own.
 */
let apps: Record<'sdk' | 'collector' | 'probe', Promise<string>>;

beforeAll(() => {
  packed = packAll(scratch.dir);
  // Figures for the release notes: packed and unpacked size per package.
  for (const p of packed.values()) console.log(`package ${p.name}: ${(p.size / 1024).toFixed(1)} KiB packed, ${(p.unpackedSize / 1024).toFixed(1)} KiB unpacked, ${p.files.length} files`);
  const started = Date.now();
  const timed = (name: string, install: Promise<string>) =>
    install.then((app) => (console.log(`${name}: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`), app));
  apps = {
    sdk: timed('sdk-app', createApp(scratch.dir, 'sdk-app', [tarball('@breakerbox/protocol'), tarball('@breakerbox/sdk')], ['@types/node@^20.19', 'typescript@7.0.2'], { type: 'module' })),
    collector: timed('collector-app', createApp(scratch.dir, 'collector-app', [tarball('@breakerbox/protocol'), tarball('@breakerbox/probe'), tarball('breakerbox')], [], {}, localPrebuilds(scratch.dir))),
    probe: timed('probe-host', createApp(scratch.dir, 'probe-host', [tarball('@breakerbox/protocol'), tarball('@breakerbox/probe')])),
  };
  // Each group's hook reports its own install's failure; none goes unhandled meanwhile.
  for (const install of Object.values(apps)) install.catch(() => undefined);
}, 120_000);

describe('what each tarball holds', () => {
  it('ships compiled JavaScript with declarations and no tests, fixtures or repository tooling', () => {
    for (const p of packed.values()) {
      const paths = p.files.map((f) => f.path);
      expect(paths.some((f) => f.startsWith('test/') || f.startsWith('.ci/') || f.startsWith('demo/') || /\.test\.[jt]s$/.test(f)), p.name).toBe(false);
      expect(paths.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), p.name).toEqual([]);
    }
    const collector = packed.get('breakerbox')!.files.map((f) => f.path);
    expect(collector).toContain('dist/server/cli.js');
    expect(collector).toContain('dashboard/dist/index.html');
    expect(collector.some((f) => /^migrations\/001-.*\.sql$/.test(f))).toBe(true);
    expect(packed.get('@breakerbox/sdk')!.files.map((f) => f.path)).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts']));
    expect(packed.get('@breakerbox/probe')!.files.map((f) => f.path)).toContain('dist/bin.js');
  });
});

describe('@breakerbox/sdk in an application', () => {
  let app: string;
  beforeAll(async () => {
    app = await apps.sdk;
  }, 300_000);

  it('installs without the collector: no fastify, SQLite, OpenTelemetry SDK or tsx in its tree', () => {
    const tree = installedPackages(app);
    expect(tree.has('@breakerbox/sdk')).toBe(true);
    for (const heavy of ['fastify', 'better-sqlite3', '@opentelemetry/sdk-node', 'tsx', 'breakerbox', '@breakerbox/probe']) expect(tree.has(heavy), heavy).toBe(false);
    const runtime = JSON.parse(run('npm', ['ls', '--omit=dev', '--all', '--json', '@breakerbox/sdk'], app).stdout) as { dependencies: Record<string, unknown> };
    expect(Object.keys(runtime.dependencies)).toContain('@breakerbox/sdk');
    console.log(`@breakerbox/sdk runtime tree: ${[...tree].filter((n) => !n.startsWith('@types/') && n !== 'typescript' && n !== 'undici-types').length} packages`);
  });

  const script = (ext: 'mjs' | 'cjs') => `
${ext === 'mjs' ? "import http from 'node:http';\nimport { createBreakerbox, classifyHttpError, keyId } from '@breakerbox/sdk';" : "const http = require('node:http');\nconst { createBreakerbox, classifyHttpError, keyId } = require('@breakerbox/sdk');"}
async function main() {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: JSON.parse(body).model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = 'http://127.0.0.1:' + server.address().port + '/v1';
  const bb = createBreakerbox({});
  const f = bb.fetch({ baseURL: base });
  const res = await f(base + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }) });
  const json = await res.json();
  console.log(JSON.stringify({ status: res.status, content: json.choices[0].message.content, cls: classifyHttpError(503, {}),
    keys: bb.keys().map((k) => keyId(k).split('\\u0001')[2]) }));
  await bb.close(100);
  server.close();
}
main();
`;

  // The suite runs on Node 24; the SDK's engines still promise 20.19, so each module system runs on both.
  for (const ext of ['mjs', 'cjs'] as const) {
    for (const [runtime, node] of [['this Node.js', () => process.execPath], ['Node.js 20', node20]] as const) {
      it(`protects a model call from ${ext === 'mjs' ? 'ESM (import)' : 'CommonJS (require)'} on ${runtime}`, () => {
        writeFileSync(join(app, `call.${ext}`), script(ext));
        const r = run(node(), [`call.${ext}`], app);
        expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ status: 200, content: 'OK', cls: 'server', keys: ['gpt-4o-mini'] });
      });
    }
  }

  it('type-checks in a strict TypeScript project (nodenext, exactOptionalPropertyTypes, skipLibCheck off)', () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, exactOptionalPropertyTypes: true,
          skipLibCheck: false, noEmit: true, types: ['node'], lib: ['es2023', 'dom'],
        },
        include: ['app.ts'],
      }),
    );
    writeFileSync(
      join(app, 'app.ts'),
      `import { createBreakerbox, type BreakerKey, type WindowEvent, type ErrorClass, type BreakerboxOptions } from '@breakerbox/sdk';
const options: BreakerboxOptions = { telemetry: { url: 'http://127.0.0.1:7070', service: 'typed-app' } };
const bb = createBreakerbox(options);
const key: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const cls: ErrorClass = 'rate_limit';
const f: typeof fetch = bb.fetch({ baseURL: 'https://api.openai.com/v1' });
export const used: [BreakerKey, ErrorClass, typeof f, WindowEvent['calls'] | undefined] = [key, cls, f, undefined];
`,
    );
    const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);
    expect(r.stdout + r.stderr).toBe('');
  });
});

describe('the collector package (breakerbox)', () => {
  let app: string;
  beforeAll(async () => {
    app = await apps.collector;
    console.log(`collector-app: better-sqlite3 ${compiledSqlite(app) ? 'compiled from source (no local prebuilt binary matched)' : 'from the local prebuilt binary'}`);
  }, 600_000);

  it('starts from its bin and serves the dashboard and its assets', async () => {
    const bin = join(app, 'node_modules', '.bin', 'breakerbox');
    const server = startAndWait(bin, ['server', '--port', '0', '--db', join(app, 'data', 'bb.db')], app, /listening on (http:\/\/\S+)/, {
      BREAKERBOX_ADMIN_TOKEN: 'packaging-admin-secret-0123456789',
      BREAKERBOX_LOG_LEVEL: 'warn',
    });
    try {
      const url = (await server.ready)[1]!;
      const index = await fetch(`${url}/`);
      expect(index.status).toBe(200);
      const html = await index.text();
      expect(html).toContain('<div id="root">');
      const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(asset).toBeDefined();
      const js = await fetch(`${url}${asset}`);
      expect(js.status).toBe(200);
      expect((await js.text()).length).toBeGreaterThan(10_000);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
    }
  });

  it('delegates `breakerbox probe` to the prober package', () => {
    const r = run(join(app, 'node_modules', '.bin', 'breakerbox'), ['probe', '--help'], app);
    expect(r.stdout).toContain('--config');
  });
});

describe('@breakerbox/probe alone on a prober host', () => {
  let app: string;
  beforeAll(async () => {
    app = await apps.probe;
  }, 300_000);

  it('holds no collector: no fastify and no SQLite in its tree', () => {
    const tree = installedPackages(app);
    expect(tree.has('@breakerbox/probe')).toBe(true);
    for (const heavy of ['fastify', 'better-sqlite3', '@opentelemetry/sdk-node', 'tsx', 'breakerbox']) expect(tree.has(heavy), heavy).toBe(false);
    console.log(`@breakerbox/probe runtime tree: ${tree.size} packages`);
  });

  it('answers --help and checks a configuration without sending anything', () => {
    const bin = join(app, 'node_modules', '.bin', 'breakerbox-probe');
    expect(run(bin, ['--help'], app).stdout).toContain('--check');
    writeFileSync(
      join(app, 'probes.yaml'),
      `location: eu-west
collector: { url: "http://127.0.0.1:9", token_env: BB_TOKEN }
targets:
  - name: mini
    key: { provider: openai, endpoint: chat, model: gpt-4o-mini }
    kind: openai-chat
    base_url: http://127.0.0.1:9/v1
    api_key_env: OPENAI_API_KEY
    latency_ceiling_ms: 4000
    request: { prompt: "Reply OK", max_tokens: 4, stream: true }
    price: { input_per_mtok: 0.15, output_per_mtok: 0.60 }
`,
    );
    const r = run(bin, ['--config', 'probes.yaml', '--check'], app, { BB_TOKEN: 'x', OPENAI_API_KEY: 'sk-test' });
    expect(r.stdout).toContain('gpt-4o-mini');
    // The prober's engines promise Node 20.19 too: the same check on Node 20.
    const old = run(node20(), [join(app, 'node_modules', '@breakerbox', 'probe', 'dist', 'bin.js'), '--config', 'probes.yaml', '--check'], app, { BB_TOKEN: 'x', OPENAI_API_KEY: 'sk-test' });
    expect(old.stdout).toContain('gpt-4o-mini');
  });
});
