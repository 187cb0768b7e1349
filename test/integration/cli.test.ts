import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';

for (const dialect of testDialects()) {
  describe(`callcenter CLI [${dialect}]`, () => {
    it('creates an account and a token that the API accepts', async () => {
      const t = await freshDatabase(dialect);
      try {
        const acc = await runCli(['account', 'create', 'cli-tenant', 'cli-password', '--timezone', 'Europe/Paris'], t.env);
        expect(acc.code, acc.output).toBe(0);
        expect(JSON.parse(acc.stdout)).toMatchObject({ username: 'cli-tenant', userId: expect.any(String) });
        const tok = await runCli(['token', 'create', 'cli-tenant', '--kind', 'api'], t.env);
        expect(tok.code, tok.output).toBe(0);
        const { userId, token } = JSON.parse(tok.stdout) as { userId: string; token: string };
        const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db: t.db });
        const res = await app.inject({ method: 'POST', url: '/api/v2/account/getSettings', payload: { userId, token } });
        expect(res.json()).toMatchObject({ status: 'success', data: { timezone: 'Europe/Paris' } });
        await app.close();
        const dup = await runCli(['account', 'create', 'cli-tenant', 'cli-password'], t.env);
        expect(dup.code).not.toBe(0);
        expect(dup.output).toContain('E-mail already exists');
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}

describe('callcenter CLI start-up errors', () => {
  it('names a bad variable and exits with 2', async () => {
    const res = await runCli(['migrate'], { PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.output).toContain('PORT="eighty"');
  });
  it('answers an unknown command with the usage', async () => {
    const res = await runCli(['frobnicate'], {});
    expect(res.code).toBe(2);
    expect(res.output).toContain('callcenter <command>');
  });
});
