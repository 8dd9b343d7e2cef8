import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { API } from 'typescript/unstable/sync';

/** What every scanned source file imports: other scanned files, and packages by name. */
export interface SourceImports {
  /** Repository-relative path (forward slashes) → the scanned files it imports. */
  readonly files: Map<string, Set<string>>;
  /** Repository-relative path → the bare package specifiers it imports (`fastify`, `@sinclair/typebox`). */
  readonly packages: Map<string, Set<string>>;
}

/** The folder of each workspace package, by name. */
const WORKSPACES: Readonly<Record<string, string>> = {
  '@breakerbox/protocol': 'protocol',
  '@breakerbox/sdk': 'sdk',
  '@breakerbox/probe': 'probe',
};

/**
 * The source file a workspace specifier (`@breakerbox/protocol`, `@breakerbox/protocol/schemas`)
 * names: its package.json export under the `breakerbox-source` condition, as vitest and tsc
 * resolve it.
 */
function workspaceEntry(root: string, specifier: string): string | undefined {
  const name = Object.keys(WORKSPACES).find((n) => specifier === n || specifier.startsWith(`${n}/`));
  if (name === undefined) return undefined;
  const folder = WORKSPACES[name]!;
  const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
  const entry = manifest.exports?.[`.${specifier.slice(name.length)}`];
  const source = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)['breakerbox-source'] : undefined;
  return typeof source === 'string' ? join(folder, source).split(sep).join('/') : undefined;
}

/**
 * Parses every source file of the root tsconfig under `folders` with the TypeScript compiler
 * (TypeScript 7's API, which runs the compiler in a child process) and resolves each module
 * specifier it holds: `import`, `import type`, `export … from`, `import()` and `import('…').T`
 * alike, since a type-only import couples two files as much as a value import does. A relative
 * specifier that names no scanned file throws, so an edge the resolver cannot place is never
 * silently dropped.
 */
export function readImportGraph(root: string, folders: readonly string[]): SourceImports {
  const api = new API({ cwd: root });
  try {
    const snapshot = api.updateSnapshot({ openProject: join(root, 'tsconfig.json') });
    const project = snapshot.getProject(join(root, 'tsconfig.json')) ?? snapshot.getProjects()[0];
    if (!project) throw new Error(`TypeScript opened no project for ${root}/tsconfig.json`);
    const toRepo = (file: string): string => relative(root, file).split(sep).join('/');
    const scanned = project.program
      .getSourceFileNames()
      .filter((file) => {
        const path = toRepo(file);
        if (path.startsWith('..') || /(^|\/)(node_modules|dist)\//.test(path)) return false;
        return folders.some((folder) => path.startsWith(folder.endsWith('/') ? folder : `${folder}/`));
      });
    const known = new Set(scanned.map(toRepo));
    const files = new Map<string, Set<string>>();
    const packages = new Map<string, Set<string>>();
    for (const fileName of scanned) {
      const source = project.program.getSourceFile(fileName);
      if (!source) throw new Error(`TypeScript returned no source for ${fileName}`);
      const from = toRepo(fileName);
      const targets = new Set<string>();
      const names = new Set<string>();
      for (const specifier of source.imports) {
        const text = (specifier as unknown as { text: string }).text;
        const target = resolveSpecifier(root, fileName, text, known, toRepo);
        if (target === undefined) names.add(text);
        else targets.add(target);
      }
      files.set(from, targets);
      packages.set(from, names);
    }
    return { files, packages };
  } finally {
    api.close();
  }
}

/**
 * The scanned file `specifier` names, or undefined for a package that is not a workspace
 * package. Node's own resolution is not needed: the sources name files with their `.ts`
 * extension (allowImportingTsExtensions) and the workspace packages by their source entry.
 */
function resolveSpecifier(
  root: string,
  fromFile: string,
  specifier: string,
  known: ReadonlySet<string>,
  toRepo: (file: string) => string,
): string | undefined {
  if (specifier.startsWith('@breakerbox/')) {
    const workspace = workspaceEntry(root, specifier);
    if (workspace !== undefined && known.has(workspace)) return workspace;
    throw new Error(`${toRepo(fromFile)} imports ${specifier}, a workspace path the graph cannot place`);
  }
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) return undefined;
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')];
  for (const candidate of candidates) {
    const path = toRepo(candidate);
    if (known.has(path)) return path;
  }
  // A relative import of something outside the scanned folders (package.json, a CSS file, the
  // repository's scripts) is not a source edge; one that points at a missing source file is a bug.
  const outside = candidates.find((candidate) => existsSync(candidate));
  if (outside !== undefined) return undefined;
  throw new Error(`${toRepo(fromFile)} imports ${specifier}, which names no file`);
}
