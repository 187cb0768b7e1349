import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/events/event-types.js';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { envelopeProblem } from './support/checks.js';
import { collectOperations, expectRegistered } from './support/openapi.js';

/**
 * The event state machines under random traffic: batches of plausible events
 * (known and unknown types, a small pool of calls and agents so sequences
 * collide, timestamps in and out of order, fields missing or of the wrong
 * kind, repeated event ids). Every event of a batch is accounted for exactly
 * once (accepted, duplicate, or one error with a code); a batch sent again
 * answers duplicates for everything accepted; and the views derived from the
 * events (queue/count, queue/list, Agent/live, analysis/hits) keep answering
 * success envelopes.
 */

const RUNS = Math.max(5, Math.round(Number(process.env.FUZZ_RUNS ?? 25) / 2));
const OPERATIONS = await collectOperations();

forEachDatabase('fuzz: event sequences', (use) => {
  let t: Session;
  const agents: number[] = [];
  let did = '';
  let batchNo = 0;
  const totals = { events: 0, accepted: 0, duplicates: 0, errors: 0 };

  beforeAll(async () => {
    const h = use();
    t = await createTenant(h);
    await createGroup(h, t, { groupId: 55 });
    for (let i = 0; i < 3; i++) agents.push((await createAgent(h, t, { group: 55 })).agentId);
    did = await createDid(h, t);
  });

  it('the operations it sends and reads are registered', () => {
    expectRegistered(OPERATIONS, ['events/ingest', 'queue/count', 'queue/list', 'Agent/live']);
  });

  it('accounts for every event once, replays as duplicates, and the derived views keep answering', async () => {
    const h = use();
    const base = Math.floor(h.clock.now() / 1000) - 3600;
    // Mostly well-formed, so sequences reach the state machines; now and then a field is wrong or missing.
    const sometimes = <T>(good: fc.Arbitrary<T>, bad: unknown[]) =>
      fc.oneof({ weight: 9, arbitrary: good as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
    const event = fc
      .record({
        type: sometimes(fc.constantFrom(...EVENT_TYPES), ['call.teleported', '', 'CALL.QUEUED', 7]),
        ts: sometimes(
          fc.integer({ min: 0, max: 3600 }).map((d) => base + d),
          [-1, 0, 1e12, '1700000000', null, 1.5],
        ),
        callId: sometimes(fc.integer({ min: 1, max: 4 }), ['', 123, null]),
        agentId: sometimes(fc.constantFrom(...agents), [999_999, 'x', -1]),
        groupId: sometimes(fc.constant(55), [56, '55', null]),
        did: sometimes(fc.constant(did), ['12345', 7]),
        caller: sometimes(fc.constantFrom('919876543210', '+91 98765 43211'), ['abc', 12]),
        direction: sometimes(fc.constantFrom('inbound', 'outbound'), ['sideways']),
        reason: sometimes(fc.constantFrom('completed', 'abandoned', 'failed', 'lunch'), [5, '']),
        loginType: sometimes(fc.constantFrom('Web', 'Mobile', 'SIP'), ['Fax']),
        drop: fc.option(fc.constantFrom('ts', 'callId', 'agentId', 'groupId', 'did', 'caller', 'reason'), { freq: 5 }),
      })
      .map(({ drop, ...e }) => {
        const out: Record<string, unknown> = { ...e };
        if (drop) delete out[drop];
        return out;
      });
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 60, size: 'large' }), fc.boolean(), fc.boolean(), async (list, repeatIds, inOrder) => {
        batchNo++;
        // Calls are new to each batch (an ended call id cannot be queued again); time mostly moves forward.
        if (inOrder) list.sort((a, b) => (typeof a.ts === 'number' && typeof b.ts === 'number' ? a.ts - b.ts : 0));
        const events = list.map((e, i) => ({
          ...e,
          ...(typeof e.callId === 'number' && e.callId < 5 ? { callId: `b${batchNo}-c${e.callId}` } : {}),
          eventId: repeatIds && i % 3 === 2 ? `b${batchNo}-e${i - 1}` : `b${batchNo}-e${i}`,
        }));
        const send = () => h.app.inject({ method: 'POST', url: '/api/v2/events/ingest', payload: { ssid: t.ssid, events } });
        const first = await send();
        expect(envelopeProblem(first.statusCode, first.body), first.body).toBeUndefined();
        const data = JSON.parse(first.body).data as { accepted: number; duplicates: number; errors: Array<{ index: number; code: number }> };
        expect(data.accepted + data.duplicates + data.errors.length, first.body).toBe(events.length);
        totals.events += events.length;
        totals.accepted += data.accepted;
        totals.duplicates += data.duplicates;
        totals.errors += data.errors.length;
        expect(new Set(data.errors.map((e) => e.index)).size).toBe(data.errors.length);
        for (const e of data.errors) expect(Number.isInteger(e.code) && e.index >= 0 && e.index < events.length).toBe(true);
        const again = JSON.parse((await send()).body).data as { accepted: number; duplicates: number };
        // What was accepted is a duplicate now; only events refused the first time may be accepted
        // (the batch itself changed the state they were checked against).
        expect(again.duplicates, 'an accepted event was applied again').toBeGreaterThanOrEqual(data.accepted);
        expect(again.accepted).toBeLessThanOrEqual(data.errors.length);
        for (const [op, body] of [
          ['queue/count', {}],
          ['queue/list', {}],
          ['Agent/live', {}],
        ] as const) {
          const r = await h.app.inject({ method: 'POST', url: `/api/v2/${op}`, payload: { ssid: t.ssid, ...body } });
          expect(envelopeProblem(r.statusCode, r.body), `${op}: ${r.body.slice(0, 300)}`).toBeUndefined();
          expect(JSON.parse(r.body).status, `${op}: ${r.body.slice(0, 300)}`).toBe('success');
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    console.info(`event fuzz [${h.dialect}]: ${JSON.stringify(totals)}`);
    // The generator must reach the state machines, not only their input checks.
    expect(totals.accepted).toBeGreaterThan(0);
  }, 120_000);
});
