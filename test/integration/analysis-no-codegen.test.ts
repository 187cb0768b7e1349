import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { D, call, store } from './analysis.fixtures.js';

/**
 * PRODUCT.md §8 reliability under hardening: the answer writers made by code
 * generation (counters-writer.ts, hour-grid-codec.ts) have a plain version
 * chosen once at start when code generation is refused. A process started
 * with `--disallow-code-generation-from-strings` answers the analysis
 * questions on the same database byte for byte as this one (the fast path,
 * through HTTP) does.
 */

const BREAKDOWNS = ['agentId', 'groupId', 'did', 'campaignId'];
const DISPLAYS = ['date', 'hour', 'month', 'total'];
const FIELDS = [undefined, ['tc', 'AC', 'Tc', 'avgRingTime', 'TH', 'GH_UC'], 'MC,UC,CA,avgHoldTime,FR_CAN_FR_PM_N'];

function runWithoutCodegen(env: Record<string, string>, questions: unknown[]): Promise<{ codeGeneration: boolean; answers: Array<string | { code: number }> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', 'test/helpers/analysis-without-codegen.ts'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(questions));
  });
}

forEachDatabase('analysis without code generation', (use) => {
  it('a process under --disallow-code-generation-from-strings answers every analysis question byte for byte as the generated writers do', async () => {
    const h = use();
    const t = await createTenant(h);
    // 30 days of calls over 6 agents, 3 groups, 2 DIDs, 2 campaigns: every breakdown and display has many keys and buckets.
    const calls = [];
    for (let i = 0; i < 600; i++) {
      const at = D + Math.floor((i * 4337) % (30 * 86400));
      const agent = 1 + (i % 6);
      calls.push(
        call(t.accountId, `nc-${i}`, at, {
          groupId: 1 + (i % 3),
          did: i % 2 ? '9100' : '9200',
          campaignId: i % 5 ? 'camp-a' : 'camp-b',
          talkSecs: (i * 7) % 90,
          holdSecs: (i * 3) % 17,
          offers: [{ agent, ring: 1 + (i % 9), answered: i % 4 !== 0 }],
        }),
      );
    }
    await store(h, ...calls);
    await h.services.hourGrids.runOnce();
    const range = { key: 'date', condi: 'range', val: '01-10-2026 00:00:00,02-08-2026 23:59:59' };
    const questions: Array<Record<string, unknown>> = [];
    for (const breakDown of BREAKDOWNS)
      for (const disPlay of DISPLAYS)
        for (const multi of [true, false])
          for (const fields of FIELDS) questions.push({ filter: [range], breakDown, disPlay, multi, ...(fields === undefined ? {} : { fields }) });
    questions.push({ filter: [range, { key: 'agentId', condi: 'in', val: ['1', '2'] }], disPlay: 'hour', multi: true, fields: ['TC', 'avgRingTime'] });
    const fast: string[] = [];
    for (const body of questions) {
      const res = await h.app.inject({ method: 'POST', url: '/api/v2/analysis/hits', payload: { ssid: t.ssid, ...body } });
      expect(res.json().status, JSON.stringify(body)).toBe('success');
      fast.push(res.rawPayload.toString('base64'));
    }
    const plain = await runWithoutCodegen({ ...h.testDb.env, ACCOUNT_ID: String(t.accountId), CLOCK_MS: String(h.clock.now()) }, questions);
    expect(plain.codeGeneration).toBe(false);
    questions.forEach((body, i) => {
      const data = plain.answers[i];
      expect(typeof data, JSON.stringify(body)).toBe('string');
      const whole = Buffer.concat([Buffer.from('{"status":"success","code":200,"data":'), Buffer.from(data as string, 'base64'), Buffer.from('}')]);
      expect(whole.toString('base64') === fast[i], JSON.stringify(body)).toBe(true);
    });
  }, 300_000);

  it('fields: at most 32 codes listed (1001 beyond), matched and de-duplicated case-insensitively, each answered under its first spelling', async () => {
    const h = use();
    const t = await createTenant(h);
    await store(h, call(t.accountId, 'f-1', D + 100, { offers: [{ agent: 1, ring: 3, answered: true }] }));
    const range = { key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-10-2026 23:59:59' };
    const ask = (fields: unknown) => h.post('/api/v2/analysis/hits', { ssid: t.ssid, filter: [range], disPlay: 'total', fields });
    const many = await ask(Array.from({ length: 33 }, () => 'TC'));
    expect(many.body.code).toBe(1001);
    expect(String(many.body.message)).toContain('32');
    expect((await ask(Array.from({ length: 33 }, () => 'TC').join(','))).body.code).toBe(1001);
    const ok = await ask([...Array.from({ length: 30 }, (_, i) => (i % 2 ? 'tc' : 'Tc')), 'AC', 'ac']);
    expect(ok.body.status).toBe('success');
    const row = Object.values(ok.body.data as Record<string, Record<string, number>>)[0]!;
    expect(Object.keys(row)).toEqual(['Tc', 'AC']);
  });
});
