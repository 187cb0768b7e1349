import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';
import { TEST_ADMIN, startServerProcess, type ServerProcess } from '../helpers/process.js';

async function ok(server: ServerProcess, route: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await server.post(route, body);
  expect(res.body?.status, `${route} ${res.raw}`).toBe('success');
  return res.body!;
}

for (const dialect of testDialects()) {
  describe(`callcenter import contacts [${dialect}]`, () => {
    it('streams a CSV file to a running server through the public API: rows written, bad rows listed by line, usage and credential errors (each CLI run is a new process: slow on a loaded machine)', async () => {
      const t = await freshDatabase(dialect);
      await t.db.close();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contacts-cli-'));
      const server = await startServerProcess({ env: t.env });
      try {
        const op = (await ok(server, '/api/v2/auth/login', TEST_ADMIN)) as { ssid: string };
        await ok(server, '/api/v2/account/create', { ssid: op.ssid, username: 'cli-lists', password: 'cli-lists-password', name: 'Lists' });
        const tenant = (await ok(server, '/api/v2/auth/login', { username: 'cli-lists', password: 'cli-lists-password' })) as { ssid: string };
        const clId = ((await ok(server, '/api/v2/contactList/create', { ssid: tenant.ssid, name: 'From a file' })).data as { clId: number }).clId;
        const tok = (await ok(server, '/api/v2/auth/token', { ssid: tenant.ssid })) as { userId: string; token: string };

        const rows = ['number,name,timezone,plan'];
        for (let i = 0; i < 3_000; i++) rows.push(`${919700000000 + i},Person ${i},${i % 2 ? 'Europe/London' : ''},p${i % 4}`);
        rows[100] = '99,Too short,,p0'; // line 101
        rows[2_000] = '919755555555,Bad zone,Atlantis/Nowhere,p0'; // line 2,001
        const file = path.join(dir, 'contacts.csv');
        fs.writeFileSync(file, `${rows.join('\n')}\n`);
        const api = `http://127.0.0.1:${server.port}`;

        const run = await runCli(['import', 'contacts', file, '--list', String(clId), '--api', api, '--user-id', tok.userId, '--token', tok.token], {});
        expect(run.code, run.output).toBe(0);
        expect(run.stdout.trim()).toBe('3000 rows: 2998 added, 0 updated, 2 rejected');
        expect(run.output).toContain('line 101: 1005');
        expect(run.output).toContain('line 2001: 1001');
        const lists = (await ok(server, '/api/v2/contactList/list', { ssid: tenant.ssid })).data as Array<{ contacts: number }>;
        expect(lists[0]!.contacts).toBe(2_998);

        // The session form, from the environment: the same file again updates every row.
        const again = await runCli(['import', 'contacts', file, '--list', String(clId)], { CALLCENTER_API_URL: api, CALLCENTER_SSID: tenant.ssid });
        expect(again.code, again.output).toBe(0);
        expect(again.stdout.trim()).toBe('3000 rows: 0 added, 2998 updated, 2 rejected');

        const badToken = await runCli(['import', 'contacts', file, '--list', String(clId), '--api', api, '--user-id', tok.userId, '--token', 'wrong'], {});
        expect(badToken.code).toBe(1);
        expect(badToken.output).toContain('error 1014');
        const usage = await runCli(['import', 'contacts', file, '--api', api], {});
        expect(usage.code).toBe(2);
        expect(usage.output).toContain('--list CLID is required');
      } finally {
        await server.stop();
        fs.rmSync(dir, { recursive: true, force: true });
        await t.drop();
      }
    }, 300_000);
  });
}
