import fc from 'fast-check';
import { loadConfig } from '../../src/config/config.js';
import { beforeAll, expect, it } from 'vitest';
import { createAgent, createDid, createGroup, createRole, uniquePhone } from '../helpers/admin.js';
import { createTenant, login, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { brokenCredentials, fuzzCase, type FuzzCase } from './support/arbitraries.js';
import { changedTables, envelopeProblem, fingerprint } from './support/checks.js';
import { collectOperations, expectRegistered, idKindOf, type ApiOperation } from './support/openapi.js';

/**
 * Bad input never hurts (PRODUCT.md §8): for every operation of the OpenAPI
 * document, hostile bodies derived from its request schema, with a valid
 * tenant session, without credentials and with broken ones. Every answer is a
 * well-formed envelope, never 5xx or internal text; a request that fails
 * changes nothing in the database; the server keeps answering.
 *
 * FUZZ_RUNS cases per operation and database (default 25, bounded for CI);
 * a soak: `FUZZ_RUNS=2000 npx vitest run test/reliability/fuzz.test.ts`.
 * FUZZ_SEED replays a reported failure.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
// The operations whose body is JSON: every case here is a JSON body. A surface whose body is a file
// (contactList/importCsv, credentials in the query) has its bad files tested where it is (contact-import-csv.test.ts).
const OPERATIONS = (await collectOperations()).filter((op) => op.credentialsIn === 'body');

type Mode = 'session' | 'anonymous' | 'broken';

// FUZZ_VERBOSE=1 prints which answers each operation gave (does the fuzz reach past validation?).
const answers = new Map<string, Map<string, number>>();
function tally(id: string, key: string): void {
  const m = answers.get(id) ?? new Map<string, number>();
  answers.set(id, m.set(key, (m.get(key) ?? 0) + 1));
}

async function send(h: Harness, op: ApiOperation, c: FuzzCase, creds: Record<string, unknown>): Promise<{ http: number; raw: string; type: string }> {
  const payload = c.raw ?? JSON.stringify({ ...c.body, ...creds });
  const res = await h.app.inject({ method: 'POST', url: op.path, payload, headers: { 'content-type': 'application/json' } });
  return { http: res.statusCode, raw: res.body, type: String(res.headers['content-type'] ?? '') };
}

/** A report asked for as CSV (`format: "csv"`, PRODUCT.md §11) answers CSV, not an envelope, when the request is valid. */
function isCsvAnswer(c: FuzzCase, res: { http: number; type: string }): boolean {
  return c.body?.format === 'csv' && res.http === 200 && res.type.startsWith('text/csv');
}

const LOGIN_BOOKKEEPING = ['login_failures', 'audit_log'];
/**
 * This suite is about bad input, not guessing: login protection's thresholds and the failed-credentials
 * limit per IP out of reach (each has its own tests). Over that limit a session the fuzz logs in again
 * after a logout case was answered 429 from then on, and the session cases stopped reaching past admission.
 */
const NO_LOCKOUT = {
  login: { ...loadConfig({ LOG_LEVEL: 'silent' }).login, userFailures: 1_000_000, ipFailures: 1_000_000 },
  authFailuresPerMinute: 0,
};

forEachDatabase(
  'fuzz: bad input never hurts',
  (use) => {
    let tenant: Session & { username: string; password: string };

    // Real records of the fuzzing tenant, offered to id fields so cases reach past "not found".
    const pool: Record<string, unknown[]> = {};
    const poolFor = (field: string): unknown[] => {
      const kind = idKindOf(field);
      return kind ? (pool[kind] ?? []) : [];
    };

    beforeAll(async () => {
      const h = use();
      tenant = await createTenant(h);
      pool.group = [await createGroup(h, tenant, { groupId: 55 }), await createGroup(h, tenant)];
      pool.role = [await createRole(h, tenant)];
      pool.agent = [(await createAgent(h, tenant, { role: pool.role[0] as number, group: 55 })).agentId];
      pool.did = [await createDid(h, tenant)];
      const contact = uniquePhone();
      expect((await h.post('/api/v2/Directory/create', { ssid: tenant.ssid, contact, contactinfo: { name: 'Fuzz Contact' } })).body.status).toBe('success');
      pool.contact = [contact, Number(contact)];
    });

    it('derives its cases from the OpenAPI document of every operation', () => {
      expect(OPERATIONS.length).toBeGreaterThan(0);
      expectRegistered(OPERATIONS, ['account/updateSettings', 'group/create', 'role/create', 'Agent/create', 'did/create', 'Directory/create']);
      console.info(`fuzz covers ${OPERATIONS.length} operations: ${OPERATIONS.map((o) => o.id).join(', ')}`);
    });

    for (const op of OPERATIONS) {
      it(`${op.id}: every answer is an envelope, never 5xx, and a failed request changes nothing`, async () => {
        const h = use();
        let state = await fingerprint(h.db);
        await fc.assert(
          fc.asyncProperty(
            fuzzCase(op, poolFor),
            fc.constantFrom<Mode>('session', 'session', 'anonymous', 'broken'),
            brokenCredentials,
            async (c, mode, broken) => {
              const creds = mode === 'session' ? { ssid: tenant.ssid } : mode === 'broken' ? broken : {};
              const res = await send(h, op, c, creds);
              if (isCsvAnswer(c, res)) {
                if (op.auth && mode !== 'session') throw new Error(`${op.id} answered CSV without valid credentials [${mode}, ${c.how}]`);
                tally(op.id, 'csv');
                state = await fingerprint(h.db);
                return;
              }
              const problem = envelopeProblem(res.http, res.raw);
              if (problem) throw new Error(`${op.id} [${mode}, ${c.how}]: ${problem}\nanswer: ${res.raw.slice(0, 500)}`);
              const body = JSON.parse(res.raw) as { status: string; code: number };
              tally(op.id, body.status === 'success' ? 'ok' : String(body.code));
              const after = await fingerprint(h.db);
              if (body.status === 'success') {
                if (op.auth && mode !== 'session') throw new Error(`${op.id} succeeded without valid credentials [${mode}, ${c.how}]`);
                state = after;
                // Some successes end the fuzzing session (logout); continue with a new one.
                if ((await h.post('/api/v2/account/getSettings', { ssid: tenant.ssid })).body.code === 1014) {
                  tenant = { ...tenant, ...(await login(h, tenant.username, tenant.password)) };
                  state = await fingerprint(h.db);
                }
                return;
              }
              // A failed login is counted by login protection (and a lockout is an audit record): by design.
              const changed = changedTables(state, after).filter((t) => !(op.id === 'auth/login' && LOGIN_BOOKKEEPING.includes(t)));
              if (changed.length) throw new Error(`${op.id} failed with ${body.code} [${mode}, ${c.how}] but changed ${changed.join(', ')}`);
            },
          ),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
        const health = await h.app.inject({ method: 'GET', url: '/healthz' });
        expect(health.statusCode).toBe(200);
      }, 120_000);
    }

    it('answers 1000 (never 500) for U+0000 in any string of any operation, which PostgreSQL cannot store', async () => {
      const h = use();
      for (const op of OPERATIONS) {
        for (const body of [{ name: 'a\u0000b', username: 'x\u0000', contact: '9198\u0000' }, { nested: { ['k\u0000']: 1 } }]) {
          const res = await send(h, op, { how: 'nul', body }, op.auth ? { ssid: tenant.ssid } : {});
          expect(envelopeProblem(res.http, res.raw), `${op.id}: ${res.raw}`).toBeUndefined();
          expect(JSON.parse(res.raw).code, `${op.id}: ${res.raw}`).toBe(1000);
        }
      }
    });

    it('still serves a valid session after the whole fuzz run', async () => {
      const h = use();
      const res = await h.post('/api/v2/account/getSettings', { ssid: tenant.ssid });
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
      if (process.env.FUZZ_VERBOSE) for (const [id, m] of answers) console.info(id, Object.fromEntries(m));
    });
  },
  { config: NO_LOCKOUT },
);
