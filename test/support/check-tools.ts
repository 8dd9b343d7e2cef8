// First step of `npm test`: stops within a second, with one line, when a tool the suite needs is
// not installed (instead of hundreds of launch errors minutes later). Exit code 1 then.
import { missingTools, missingToolsMessage } from './required-tools.ts';

const missing = missingTools();
if (missing.length) {
  console.error(missingToolsMessage(missing));
  process.exitCode = 1;
}
