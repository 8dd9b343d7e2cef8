import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../server/clock.ts';
import { createSqliteStorage } from '../../server/storage/sqlite/sqlite-storage.ts';
import { storageContract } from './contract.ts';

storageContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bbx-contract-'));
  const storage = createSqliteStorage({
    path: join(dir, 'contract.db'),
    clock: systemClock,
    retryAfterS: 1,
    retention: { rawDays: 7, rollupDays: 90, batchIdHours: 48, alertHistoryDays: 30, silenceDays: 7 },
  });
  return {
    storage,
    async dispose() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
