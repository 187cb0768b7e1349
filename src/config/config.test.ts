import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(8080);
    expect(c.dataDir.endsWith('/data')).toBe(true);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.sessionTtlSeconds).toBe(43200);
    expect(c.demo).toBe(false);
    expect(c.analysisCacheBytes).toBe(32 * 2 ** 20);
    expect(c.webhookAllowPrivate).toBe(false);
    expect(c.webhookDelivery).toBe(true);
    expect(c.webhookTimeoutMs).toBe(10_000);
  });
  it('reads the webhook switches', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_DELIVERY: '0' })).toMatchObject({ webhookAllowPrivate: true, webhookDelivery: false });
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
    expect(() => loadConfig({ WEBHOOK_DELIVERY: 'off' })).toThrow(/WEBHOOK_DELIVERY/);
  });
  it('names the bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT="eighty"/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ CALLCENTER_DEMO: 'maybe' })).toThrow(/CALLCENTER_DEMO/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ SESSION_TTL_SECONDS: '5' })).toThrow(/SESSION_TTL_SECONDS/);
    expect(() => loadConfig({ ANALYSIS_CACHE_MB: '-1' })).toThrow(/ANALYSIS_CACHE_MB/);
  });
  it('reads the analysis cache budget in MB (0 disables it)', () => {
    expect(loadConfig({ ANALYSIS_CACHE_MB: '0' }).analysisCacheBytes).toBe(0);
    expect(loadConfig({ ANALYSIS_CACHE_MB: '128' }).analysisCacheBytes).toBe(128 * 2 ** 20);
  });
  it('reads the report cache budget in MB (default 32, 0 disables it)', () => {
    expect(loadConfig({}).reportCacheBytes).toBe(32 * 2 ** 20);
    expect(loadConfig({ REPORT_CACHE_MB: '0' }).reportCacheBytes).toBe(0);
    expect(() => loadConfig({ REPORT_CACHE_MB: '-1' })).toThrow(/REPORT_CACHE_MB/);
  });
  it('never echoes a database URL (it may hold a password)', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:secret@h/db' })).toThrow(/DATABASE_URL/);
    try {
      loadConfig({ DATABASE_URL: 'mysql://u:secret@h/db' });
    } catch (e) {
      expect(String(e)).not.toContain('secret');
    }
  });
  it('reads PostgreSQL and demo settings', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://localhost/x', CALLCENTER_DEMO: '1', PORT: '0' });
    expect(c.databaseUrl).toBe('postgres://localhost/x');
    expect(c.demo).toBe(true);
    expect(c.port).toBe(0);
  });
});
