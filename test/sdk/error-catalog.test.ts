import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SDK_ERROR_CODES } from '../../sdk/index.ts';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'sdk', 'README.md'), 'utf8');
const SOURCES = ['breakerbox.ts', 'fetch/rescued-response.ts'].map((f) => readFileSync(join(import.meta.dirname, '..', '..', 'sdk', f), 'utf8')).join('\n');

describe('the SDK error catalog', () => {
  it('documents every error code in the SDK README', () => {
    for (const code of Object.values(SDK_ERROR_CODES)) expect(README, code).toContain(`\`${code}\``);
  });

  it('documents every warning code the SDK emits', () => {
    const warnings = [...new Set(SOURCES.match(/BB_WARN_SDK_[A-Z_]+/g) ?? [])];
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    for (const code of warnings) expect(README, code).toContain(code);
  });
});
