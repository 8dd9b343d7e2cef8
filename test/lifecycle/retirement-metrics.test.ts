import { describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import { MIN, collector, windows } from '../verdicts/support.ts';
import { promtoolCheckMetrics, sample, scrape } from '../metrics/support.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-02T12:00:00Z');
const RETIRING = { provider: 'openai', endpoint: 'chat', model: 'gpt-5-mini' };
const RETIRED = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.1-8B-Instruct-Turbo:free@2024', region: 'us-east' };
const UNDATED = { provider: 'openai', endpoint: 'embeddings', model: 'text-embedding-3-small' };

describe('breakerbox_model_retirement_seconds on /metrics', () => {
  it('exports days to retirement per provider and model in use, negative once retired, and nothing for models without a date', async () => {
    const clock = manualClock(NOW);
    const c = await collector({
      clock,
      config: {
        lifecycle: {
          shipped_calendar: false,
          retirements: [
            { provider: 'openai', model: 'gpt-5-mini', shutdown: '2026-12-11', successor: 'gpt-6.1-terra' },
            { provider: 'together', model: 'meta-llama/Llama-3.1-*', shutdown: '2026-11-30T12:00:00Z' },
            { provider: 'openai', model: 'never-called', shutdown: '2026-12-20' },
          ],
        },
      },
    });
    try {
      for (const key of [RETIRING, RETIRED, UNDATED]) await c.send({ service: 'svc', instance: 'i' }, windows(key, c.now - 5 * MIN, c.now, { calls: 3 }));
      const page = await scrape(c);
      expect(promtoolCheckMetrics(page)).toBe('');
      expect(page).toContain('# TYPE breakerbox_model_retirement_seconds gauge');
      // 2026-12-11 00:00 UTC is 8.5 days after 2026-12-02 12:00 UTC.
      expect(sample(page, 'breakerbox_model_retirement_seconds', 'provider="openai",model="gpt-5-mini"')).toBe(8.5 * 86_400);
      expect(sample(page, 'breakerbox_model_retirement_seconds', 'provider="together",model="meta-llama/Llama-3.1-8B-Instruct-Turbo:free@2024"')).toBe(-2 * 86_400);
      const series = page.split('\n').filter((l) => l.startsWith('breakerbox_model_retirement_seconds{'));
      expect(series).toHaveLength(2);

      // The gauge follows the injected clock.
      clock.advance(DAY);
      expect(sample(await scrape(c), 'breakerbox_model_retirement_seconds', 'provider="openai",model="gpt-5-mini"')).toBe(7.5 * 86_400);
    } finally {
      await c.close();
    }
  });
});
