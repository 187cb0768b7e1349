import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'node:http';
import { expect, it } from 'vitest';
import { forEachDatabase } from '../helpers/harness.js';
import { scriptCalls } from './callreport.fixtures.js';

// One recordings directory for the suites, a secret file beside it (outside), and links inside that point out.
const root = mkdtempSync(path.join(tmpdir(), 'recordings-test-'));
const dir = path.join(root, 'recordings');
const SECRET = 'outside the recordings directory';
const AUDIO = Buffer.from(Array.from({ length: 100 }, (_, i) => i));
mkdirSync(path.join(dir, '2026/11/24'), { recursive: true });
writeFileSync(path.join(dir, '2026/11/24/c1.wav'), AUDIO);
writeFileSync(path.join(dir, 'notes.mp3'), 'ID3');
writeFileSync(path.join(root, 'secret.txt'), SECRET);
mkdirSync(path.join(root, 'outside'));
writeFileSync(path.join(root, 'outside', 'x.wav'), SECRET);
symlinkSync(path.join(root, 'secret.txt'), path.join(dir, 'link.wav'));
symlinkSync(path.join(root, 'outside'), path.join(dir, 'outdir'));

forEachDatabase(
  'recordings: CallReport/detail rcrdAr and GET /api/v2/recording/directstream',
  (use) => {
    const get = (url: string, headers: Record<string, string> = {}) => use().app.inject({ method: 'GET', url, headers });
    const sign = (p: string) => use().services.callReports.tokens.sign(p, use().clock.now() / 1000);

    it('rcrdAr names each recording as <token>*<segments>; joined with / it plays, whole or by Range', async () => {
      const h = use();
      const { t, rec } = await scriptCalls(h);
      mkdirSync(path.dirname(path.join(dir, rec.main)), { recursive: true });
      writeFileSync(path.join(dir, rec.main), AUDIO);
      const res = await h.post<{ data: { rcrdAr: Array<{ ndId: string; rcrd: string }> } }>('/api/v2/CallReport/detail', {
        ssid: t.ssid,
        clId: 'c1',
        rType: ['rcrd'],
      });
      const ar = res.body.data.rcrdAr;
      expect(ar.map((r) => r.ndId)).toEqual(['#2', '#3']);
      expect(ar[0]!.rcrd).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}\*a\d+\*2026\*11\*24\*c1\.wav$/);
      expect(ar[1]!.rcrd).toMatch(/\*late\*c1-mix\.wav$/);
      // Without rType there is no rcrdAr.
      expect((await h.post<{ data: Record<string, unknown> }>('/api/v2/CallReport/detail', { ssid: t.ssid, clId: 'c1' })).body.data.rcrdAr).toBeUndefined();

      const url = `/api/v2/recording/directstream/${ar[0]!.rcrd.split('*').join('/')}`;
      const whole = await get(url);
      expect(whole.statusCode).toBe(200);
      expect(whole.headers['content-type']).toBe('audio/wav');
      expect(whole.headers['accept-ranges']).toBe('bytes');
      expect(whole.rawPayload.equals(AUDIO)).toBe(true);

      const part = await get(url, { range: 'bytes=10-19' });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe('bytes 10-19/100');
      expect(part.rawPayload.equals(AUDIO.subarray(10, 20))).toBe(true);
      const tail = await get(url, { range: 'bytes=-5' });
      expect(tail.headers['content-range']).toBe('bytes 95-99/100');
      expect([...tail.rawPayload]).toEqual([95, 96, 97, 98, 99]);
      const beyond = await get(url, { range: 'bytes=100-200' });
      expect(beyond.statusCode).toBe(416);
      expect(beyond.headers['content-range']).toBe('bytes */100');
      expect(beyond.json()).toMatchObject({ status: 'error', code: 1001 });

      // Reported but never written: 404 envelope.
      const missing = await get(`/api/v2/recording/directstream/${ar[1]!.rcrd.split('*').join('/')}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ status: 'error', code: 1012, message: 'No data found: no such recording' });

      // Content type by extension.
      const mp3 = await get(`/api/v2/recording/directstream/${await sign('notes.mp3')}/notes.mp3`);
      expect(mp3.headers['content-type']).toBe('audio/mpeg');
    });

    it('the token is checked first: missing, forged, for another path or older than 24 h → 403', async () => {
      const h = use();
      const token = await sign('2026/11/24/c1.wav');
      const expect403 = async (url: string) => {
        const res = await get(url);
        expect(res.statusCode, url).toBe(403);
        expect(res.json()).toMatchObject({ status: 'error', code: 1015 });
      };
      await expect403('/api/v2/recording/directstream/2026/11/24/c1.wav');
      // Forged: one character of the signature changed (to one it is not); and the last one spelled another way that decodes to the same bytes.
      const dot = token.indexOf('.');
      const other = (c: string) => (c === 'A' ? 'B' : 'A');
      await expect403(`/api/v2/recording/directstream/${token.slice(0, dot + 1)}${other(token[dot + 1]!)}${token.slice(dot + 2)}/2026/11/24/c1.wav`);
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(token.at(-1)!);
      await expect403(`/api/v2/recording/directstream/${token.slice(0, -1)}${alphabet[last ^ 1]}/2026/11/24/c1.wav`);
      await expect403(`/api/v2/recording/directstream/${token}/notes.mp3`);
      await expect403(`/api/v2/recording/directstream/${token}/2026/11/24/nothing.wav`); // 403, not 404: nothing is told without a token
      h.clock.advance((24 * 3600 - 1) * 1000);
      expect((await get(`/api/v2/recording/directstream/${token}/2026/11/24/c1.wav`)).statusCode).toBe(200);
      h.clock.advance(1000);
      await expect403(`/api/v2/recording/directstream/${token}/2026/11/24/c1.wav`);
    });

    it('no path outside RECORDINGS_DIR is served, even with a token signed for it: .., %2e%2e, absolute, symlinks out', async () => {
      // Over a socket with the path exactly as written: app.inject (like any WHATWG URL client) resolves `..` and `%2e%2e` away.
      const h = use();
      const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
      const secretFile = path.join(root, 'secret.txt');
      const attempts: Array<[signedFor: string, urlPath: string]> = [
        ['../secret.txt', '../secret.txt'],
        ['2026/../../secret.txt', '2026/../../secret.txt'],
        ['../outside/x.wav', '../outside/x.wav'],
        ['../secret.txt', '%2e%2e/secret.txt'],
        ['../secret.txt', '%2E%2E%2Fsecret.txt'],
        ['2026/../../secret.txt', '2026/%2e%2e/%2e%2e/secret.txt'],
        [secretFile.slice(1), secretFile.slice(1)],
        [secretFile, secretFile], // `<token>//tmp/…`: an absolute path after the token
        [secretFile, encodeURIComponent(secretFile)],
        ['link.wav', 'link.wav'],
        ['outdir/x.wav', 'outdir/x.wav'],
        ['..%2fsecret.txt', '..%252fsecret.txt'],
      ];
      for (const [signedFor, urlPath] of attempts) {
        const res = await rawGet(`${address}/api/v2/recording/directstream/${await sign(signedFor)}/${urlPath}`);
        expect(res.body, urlPath).not.toContain(SECRET);
        expect(res.status, urlPath).toBe(404);
        expect(JSON.parse(res.body), urlPath).toEqual({ status: 'error', code: 1012, message: 'No data found: no such recording' });
      }
    });
  },
  { config: { recordingsDir: dir } },
);

/** GET over a socket with the path exactly as written (no dot-segment removal). */
function rawGet(url: string): Promise<{ status: number; body: string }> {
  const u = /^http:\/\/([^:/]+):(\d+)(\/.*)$/.exec(url)!;
  return new Promise((resolve, reject) => {
    const req = request({ host: u[1], port: Number(u[2]), path: u[3], method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
