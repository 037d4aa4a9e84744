import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { scrapedGauge, sharedReading } from '../../src/system/metrics.ts';

describe('METRICS_PORT', () => {
  it('may not be the API port or the verification app port', () => {
    expect(() => loadConfig({ PORT: '9100', METRICS_PORT: '9100' })).toThrow(ConfigError);
    expect(() => loadConfig({ VERIFY_PORT: '9101', METRICS_PORT: '9101' })).toThrow(/METRICS_PORT/);
    expect(loadConfig({ METRICS_PORT: '9102' }).metricsPort).toBe(9102);
    expect(loadConfig({}).metricsPort).toBeUndefined();
  });
});

describe('gauges read at scrape time', () => {
  it('share one reading per scrape, and a failed reading leaves the scrape answering with the last value', async () => {
    const registry = new Registry();
    let reads = 0;
    let broken = false;
    const read = sharedReading(async () => {
      reads++;
      if (broken) throw new Error('database away');
      return reads * 10;
    });
    const failures: string[] = [];
    const failed = (metric: string) => void failures.push(metric);
    scrapedGauge(registry, { name: 'a_things', help: 'a' }, read, failed);
    scrapedGauge(registry, { name: 'b_things', help: 'b' }, async () => (await read()) + 1, failed);
    expect(await registry.metrics()).toMatch(/^a_things 10$[\s\S]*^b_things 11$/m);
    expect(reads).toBe(1);
    broken = true;
    expect(await registry.metrics()).toMatch(/^a_things 10$[\s\S]*^b_things 11$/m);
    expect(failures).toEqual(['a_things', 'b_things']);
  });
});
