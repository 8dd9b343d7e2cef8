// Regenerates the settings table of docs/configuration.md from the config schema
// (server/config/schema.ts): `npm run docs:config`. test/server/config-doc.test.ts fails
// when the committed table differs from what this would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceSettingsBlock } from '../server/config/settings-block.ts';

const file = join(import.meta.dirname, '..', 'docs', 'configuration.md');
const before = readFileSync(file, 'utf8');
const after = replaceSettingsBlock(before);
if (after === before) console.log('docs/configuration.md is up to date');
else {
  writeFileSync(file, after);
  console.log('docs/configuration.md: settings table regenerated');
}
