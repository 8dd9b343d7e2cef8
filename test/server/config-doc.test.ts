import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSettings } from '../../server/config/describe.ts';
import { ENV_SETTINGS } from '../../server/config/env-vars.ts';
import { replaceSettingsBlock } from '../../server/config/settings-block.ts';

const docFile = join(import.meta.dirname, '..', '..', 'docs', 'configuration.md');

describe('docs/configuration.md', () => {
  it('lists exactly the settings of the config schema (run `npm run docs:config` after changing one)', () => {
    const doc = readFileSync(docFile, 'utf8');
    expect(replaceSettingsBlock(doc)).toBe(doc);
  });

  it('marks a list item\'s optional fields as optional and its required ones as required', () => {
    const byPath = new Map(describeSettings().map((d) => [d.path, d.default]));
    for (const f of ['provider', 'model', 'shutdown']) expect(byPath.get(`lifecycle.retirements[].${f}`), f).toBe('required');
    for (const f of ['successor', 'link']) expect(byPath.get(`lifecycle.retirements[].${f}`), f).toBe('none');
    expect(byPath.get('notifiers[].headers')).toBe('none');
  });

  it('has a meaning for every setting', () => {
    const undescribed = describeSettings().filter((s) => !s.description).map((s) => s.path);
    expect(undescribed).toEqual([]);
  });

  it('names a real setting for every environment variable', () => {
    const paths = new Set(describeSettings().map((s) => s.path));
    for (const [name, { path }] of Object.entries(ENV_SETTINGS)) expect(paths.has(path), `${name} -> ${path}`).toBe(true);
  });

  it('fails when a setting is missing from the document', () => {
    const doc = readFileSync(docFile, 'utf8');
    const edited = doc.replace(/^\| `retention\.raw_days` .*\n/m, '');
    expect(edited).not.toBe(doc);
    expect(replaceSettingsBlock(edited)).not.toBe(edited);
  });
});
