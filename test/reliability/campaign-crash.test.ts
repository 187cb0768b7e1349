import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, testDialects, type TestDatabase } from '../helpers/databases.js';
import { campaignWorld, ok, type CampaignWorld } from '../helpers/campaign-world.js';
import { startServerProcess, type Answer, type ServerProcess } from '../helpers/process.js';
import { closeReaders, openSse, type SseReader } from '../helpers/sse.js';

/**
 * The dialer across process boundaries (PRODUCT.md §13): a node killed with
 * SIGKILL mid-campaign and started again loses no dial and dials no contact
 * twice (each dial is recorded with its `call.originate` in one transaction,
 * the lease is in the database); two nodes on one PostgreSQL dial a campaign
 * from one node at a time, and when that node dies the other takes over once
 * the lease runs out (within 30 s). The test is the switch: it reads the
 * commands from the stream (resuming with Last-Event-ID across restarts) and
 * answers each dial busy, so with maxAttempts 1 every contact is dialled
 * exactly once and the campaign completes.
 */

const nowSec = () => Math.floor(Date.now() / 1000);

/**
 * The switch: reads `call.originate` from one node's stream (reopened with
 * Last-Event-ID on another node or after a restart: at least once, so a
 * command seen twice is one dial) and answers each dial busy through
 * `events/ingest`, keeping what a dead node refused to send again.
 */
class TestSwitch {
  /** Every campaign dial the switch was told of, in order, by call id. */
  readonly dials = new Map<string, { customer: string; at: number }>();
  private reader: SseReader | null = null;
  private lastId: string | null = null;
  private read = 0;
  private pending: unknown[] = [];

  constructor(private readonly w: CampaignWorld) {}

  async connect(p: ServerProcess): Promise<void> {
    this.absorb();
    this.reader?.close();
    const { userId, token } = this.w.switchCreds;
    this.reader = await openSse(
      `http://127.0.0.1:${p.port}/api/v2/stream?userId=${userId}&token=${token}`,
      this.lastId ? { 'Last-Event-ID': this.lastId } : {},
    );
    expect(this.reader.status).toBe(200);
    this.read = 0;
    await this.reader.next((m) => m.event === 'ready');
    // A reset would mean the log could not bring the switch up to date: commands lost.
    expect(this.reader.messages.some((m) => m.event === 'reset')).toBe(false);
  }

  /** Takes in the messages read since the last look. */
  private absorb(): void {
    if (!this.reader) return;
    const messages = this.reader.messages;
    for (; this.read < messages.length; this.read++) {
      const m = messages[this.read]!;
      if (m.id) this.lastId = m.id;
      if (m.event !== 'call.originate' || !String(m.data.callId).startsWith('obd-')) continue;
      const callId = String(m.data.callId);
      if (this.dials.has(callId)) continue;
      this.dials.set(callId, { customer: String(m.data.customer), at: Date.now() });
      this.pending.push(
        { eventId: `${callId}-d`, type: 'call.dialing', ts: nowSec(), callId, direction: 'outbound' },
        { eventId: `${callId}-e`, type: 'call.ended', ts: nowSec(), callId, reason: 'busy' },
      );
    }
  }

  /** Reads the stream and answers the new dials through `p`; what `p` did not take stays pending. */
  async pump(p: ServerProcess): Promise<void> {
    this.absorb();
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    let res: Answer | null = null;
    try {
      res = await p.post('/api/v2/events/ingest', { ...this.w.switchCreds, events });
    } catch {
      res = null; // the node is gone: send them again to the next one
    }
    if (res?.body?.status !== 'success') this.pending = [...events, ...this.pending];
  }

  close(): void {
    this.reader?.close();
  }
}

/** Polls `cond` (pumping the switch between looks) until it holds; fails after `ms`. */
async function until(what: string, ms: number, sw: TestSwitch, node: () => ServerProcess, cond: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    await sw.pump(node());
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function recordedDials(t: TestDatabase, w: CampaignWorld): Promise<Array<{ call_id: string; contact_id: number; number: string }>> {
  return t.db.all('SELECT call_id, contact_id, number FROM campaign_calls WHERE account_id = $1 AND campaign_id = $2', [w.accountId, w.campaignId]);
}

async function lease(t: TestDatabase, w: CampaignWorld): Promise<{ owner: string | null; until: number }> {
  const row = await t.db.get<{ lease_owner: string | null; lease_until: number | null }>(
    'SELECT lease_owner, lease_until FROM campaigns WHERE account_id = $1 AND campaign_id = $2',
    [w.accountId, w.campaignId],
  );
  return { owner: row?.lease_owner ?? null, until: Number(row?.lease_until ?? 0) };
}

/** No contact dialled twice, and the switch was told of every recorded dial (and of nothing else). */
async function expectEveryDialOnceAndDelivered(t: TestDatabase, w: CampaignWorld, sw: TestSwitch): Promise<void> {
  const rows = await recordedDials(t, w);
  const perContact = new Map<number, number>();
  for (const r of rows) perContact.set(Number(r.contact_id), (perContact.get(Number(r.contact_id)) ?? 0) + 1);
  expect([...perContact.values()].filter((n) => n > 1)).toEqual([]);
  expect(new Set(rows.map((r) => r.call_id))).toEqual(new Set(sw.dials.keys()));
  const customers = [...sw.dials.values()].map((d) => d.customer);
  expect(new Set(customers).size).toBe(customers.length);
}

afterAll(() => closeReaders());

for (const dialect of testDialects()) {
  describe(`dialer killed with SIGKILL mid-campaign [${dialect}]`, () => {
    let t: TestDatabase;
    let node: ServerProcess | null = null;
    beforeAll(async () => {
      t = await freshDatabase(dialect);
    });
    afterAll(async () => {
      await node?.kill();
      await t.db.close();
      await t.drop();
    });

    it('restarted, it goes on from the database: every contact dialled exactly once, every recorded dial reaches the switch, the campaign completes', async () => {
      node = await startServerProcess({ env: t.env });
      const w = await campaignWorld(node, `dial-crash-${dialect}`, { agents: 4, contacts: 60, dialRatio: 2 });
      const sw = new TestSwitch(w);
      const current = () => node!;
      await sw.connect(node);
      await ok(node, '/api/v2/campaign/start', { ssid: w.ssid, campaignId: w.campaignId });
      // Mid-campaign: some dials answered, most contacts still to dial.
      await until('a first wave of dials', 30_000, sw, current, () => sw.dials.size >= 12);
      // Printed: a restart that dials sooner than this after the kill found a lease the killed node had let lapse (a stalled tick).
      const leaseLeft = (await lease(t, w)).until - Date.now();
      await node.kill();
      const atKill = sw.dials.size;
      expect(atKill).toBeLessThan(w.numbers.length);

      const killedAt = Date.now();
      node = await startServerProcess({ env: t.env });
      await sw.connect(node);
      // The killed node's lease (15 s) runs out, then the restarted node dials the rest.
      await until('a dial after the restart', 45_000, sw, current, () => sw.dials.size > atKill);
      const resumedMs = Date.now() - killedAt;
      await until(
        'the campaign completed',
        60_000,
        sw,
        current,
        async () => ((await ok(node!, '/api/v2/campaign/status', { ssid: w.ssid, campaignId: w.campaignId })).data as { state: string }).state === 'completed',
      );
      // The switch catches up on every command recorded (a dial committed just before the kill comes from the log).
      const rows = await recordedDials(t, w);
      await until('the switch holds every recorded dial', 15_000, sw, current, () => rows.every((r) => sw.dials.has(r.call_id)));
      await expectEveryDialOnceAndDelivered(t, w, sw);
      expect(rows).toHaveLength(w.numbers.length);
      expect(new Set(rows.map((r) => r.number))).toEqual(new Set(w.numbers));
      console.info(
        `[${dialect}] ${atKill} dials before the kill (lease left ${leaseLeft} ms), dialling again ${resumedMs} ms after it, ${rows.length} contacts each dialled once`,
      );
      sw.close();
    }, 180_000);
  });
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('two dialer nodes on one PostgreSQL share a campaign', () => {
  let t: TestDatabase;
  const nodes: ServerProcess[] = [];
  beforeAll(async () => {
    t = await freshDatabase('postgres');
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.kill()));
    await t.db.close();
    await t.drop();
  });

  it('one node dials at a time; when it dies the other takes over within 30 s; no contact dialled twice', async () => {
    const a = await startServerProcess({ env: t.env });
    nodes.push(a);
    const w = await campaignWorld(a, 'dial-two-nodes', { agents: 2, contacts: 400, dialRatio: 1 });
    const sw = new TestSwitch(w);
    await sw.connect(a);
    await ok(a, '/api/v2/campaign/start', { ssid: w.ssid, campaignId: w.campaignId });
    // Only A runs: A takes the lease. B starts after, while A renews it.
    const sampleOwner = async () => (await lease(t, w)).owner;
    const deadline = Date.now() + 15_000;
    while ((await sampleOwner()) === null) {
      if (Date.now() > deadline) throw new Error('no node took the lease');
      await new Promise((r) => setTimeout(r, 50));
    }
    const ownerA = (await sampleOwner())!;
    const b = await startServerProcess({ env: t.env });
    nodes.push(b);
    // The switch moves to B's stream (resuming where A's left off): A's commands reach it through the shared change log.
    await sw.connect(b);
    const owners = new Set<string | null>();
    const onB = () => b;
    await until('dials while both nodes run', 30_000, sw, onB, async () => {
      owners.add(await sampleOwner());
      return sw.dials.size >= 10;
    });
    // Several seconds of both nodes ticking: the lease never moved.
    const both = Date.now();
    await until('5 s of both nodes ticking', 10_000, sw, onB, async () => {
      owners.add(await sampleOwner());
      return Date.now() - both > 5000;
    });
    expect([...owners]).toEqual([ownerA]);

    await a.kill();
    const killedAt = Date.now();
    const before = sw.dials.size;
    await until('B holds the lease and dials', 30_000, sw, onB, async () => {
      const now = await lease(t, w);
      return now.owner !== ownerA && now.owner !== null && [...sw.dials.values()].some((d) => d.at > killedAt) && sw.dials.size > before;
    });
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThan(30_000);
    await until('B goes on dialling', 20_000, sw, onB, () => sw.dials.size >= before + 6);
    await ok(b, '/api/v2/campaign/stop', { ssid: w.ssid, campaignId: w.campaignId });
    const rows = await recordedDials(t, w);
    await until('the switch holds every recorded dial', 15_000, sw, onB, () => rows.every((r) => sw.dials.has(r.call_id)));
    await expectEveryDialOnceAndDelivered(t, w, sw);
    console.info(`two nodes: ${before} dials by A, B dialling ${takeoverMs} ms after A was killed, ${rows.length} dials in all`);
    sw.close();
  }, 120_000);
});
