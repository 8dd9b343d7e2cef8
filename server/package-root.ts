import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the `breakerbox` package — the repository root in a clone, the installed
 * package elsewhere — found from this file whether it runs as TypeScript (`server/`) or
 * compiled (`dist/server/`). Migrations and the built dashboard live there.
 */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'breakerbox') return dir;
    if (dirname(dir) === dir) throw new Error(`breakerbox: no package.json named "breakerbox" above ${from}`);
  }
}
