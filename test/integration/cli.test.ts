import http from 'node:http';
import net from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';
import { startServerProcess } from '../helpers/process.js';

/** True when a new TCP connection to the port is refused (the server stopped listening). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => (socket.destroy(), resolve(false)));
    socket.on('error', () => resolve(true));
  });
}

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

    it('serve: the first start without CALLCENTER_ADMIN_* creates "admin" with a random password printed once', async () => {
      const t = await freshDatabase(dialect);
      await t.db.close();
      const env = { ...t.env, CALLCENTER_ADMIN_USERNAME: '', CALLCENTER_ADMIN_PASSWORD: '' };
      try {
        const first = await startServerProcess({ env });
        const printed = /username "admin", password "([^"]+)"/.exec(first.output());
        expect(printed, first.output()).not.toBeNull();
        const password = printed![1]!;
        expect(password.length).toBeGreaterThanOrEqual(16);
        const ok = await first.post('/api/v2/auth/login', { username: 'admin', password });
        expect(ok.body).toMatchObject({ status: 'success', code: 200 });
        expect(await first.stop()).toBe(0);
        // A restart on the same database creates nothing and prints nothing; the password still works.
        const second = await startServerProcess({ env });
        try {
          expect(second.output()).not.toContain('Operator account created');
          expect((await second.post('/api/v2/auth/login', { username: 'admin', password })).body?.status).toBe('success');
        } finally {
          await second.stop();
        }
      } finally {
        await t.drop();
      }
    }, 60_000);

    it('serve: SIGTERM lets a request in flight finish, refuses new connections, exits 0', async () => {
      const t = await freshDatabase(dialect);
      await t.db.close();
      const p = await startServerProcess({ env: t.env });
      try {
        const body = JSON.stringify({ username: 'operator', password: 'operator-password' });
        const req = http.request({
          host: '127.0.0.1',
          port: p.port,
          method: 'POST',
          path: '/api/v2/auth/login',
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        });
        const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
          req.on('response', (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += String(d)));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          });
          req.on('error', reject);
        });
        // Headers and half the body are sent: the request is in flight when the signal arrives.
        await new Promise<void>((resolve) => req.on('socket', (sock) => sock.once('connect', () => resolve())));
        req.write(body.slice(0, 20));
        // A round trip on another connection after the partial write: once it is answered the
        // server has read the pending request's headers (one event loop, sockets polled together),
        // so the signal finds it in flight, not an idle connection, however loaded the machine.
        expect((await fetch(`http://127.0.0.1:${p.port}/healthz`)).status).toBe(200);
        const exit = p.stop();
        // The listener closes first; the request in flight is still answered below.
        await vi.waitFor(async () => expect(await refused(p.port)).toBe(true), { timeout: 10_000, interval: 10 });
        req.end(body.slice(20));
        const res = await answer;
        expect(res.status).toBe(200);
        expect(JSON.parse(res.text)).toMatchObject({ status: 'success', code: 200 });
        expect(await exit).toBe(0);
      } finally {
        await p.stop();
        await t.drop();
      }
    }, 60_000);
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
