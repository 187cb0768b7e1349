import { expect, it } from 'vitest';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

const HOUR = 3600;
let seq = 0;
const num = () => `9177${String(Date.now() % 1_000_000).padStart(6, '0')}${String(seq++ % 100).padStart(2, '0')}`;

forEachDatabase('directory: sticky agents', (use) => {
  async function setup() {
    const h = use();
    const t = await createTenant(h);
    const did = await createDid(h, t);
    const group = await createGroup(h, t);
    const agent = (await createAgent(h, t, { group })).agentId;
    const now = Math.floor(h.clock.now() / 1000);
    const post = (op: string, body: Record<string, unknown>) => h.post(`/api/v2/Directory/${op}`, { ssid: t.ssid, ...body });
    return { h, t, did, group, agent, now, post };
  }

  it('sets and reads settings of all three scopes; * is all and reads back as type "*"', async () => {
    const { did, group, agent, now, post } = await setup();
    const contact = num();
    const set1 = await post('setSticky', { contact, agentId: agent, type: '*', expiry: -1 });
    expect(set1.body).toEqual({ status: 'success', code: 200, message: 'Sticky agent set' });
    await post('setSticky', { contact, agentId: String(agent), type: 'cli', cli: did, expiry: now + HOUR });
    await post('setSticky', {
      contact: Number(contact),
      agentId: agent,
      type: 'cli_group',
      cli: `+${did}`,
      groupid: String(group),
      expiry: String(now + 2 * HOUR),
    });
    const got = await post('getSticky', { contact });
    expect(got.body).toEqual({
      status: 'success',
      code: 200,
      data: [
        { agent, expiry: now + 2 * HOUR, type: 'cli_group', cli: did, groupid: group },
        { agent, expiry: now + HOUR, type: 'cli', cli: did },
        { agent, expiry: -1, type: '*' },
      ],
    });
    expect((await post('getSticky', { contact, type: 'all' })).body.data).toEqual([{ agent, expiry: -1, type: '*' }]);
    expect((await post('getSticky', { contact, type: '*' })).body.data).toEqual([{ agent, expiry: -1, type: '*' }]);
    expect(((await post('getSticky', { contact, type: 'cli' })).body.data as unknown[]).length).toBe(1);
    expect(((await post('getSticky', { contact, groupid: group })).body.data as unknown[]).length).toBe(1);
    expect(((await post('getSticky', { contact, cli: did })).body.data as unknown[]).length).toBe(2);
    expect(((await post('getSticky', { contact, expiry: -1 })).body.data as unknown[]).length).toBe(1);
    expect(((await post('getSticky', { contact, agentId: agent + 999 })).body.data as unknown[]).length).toBe(0);
    expect((await post('getSticky', { contact: num() })).body).toEqual({ status: 'success', code: 200, data: [] });
  });

  it('the key contact+scope(+cli)(+groupid) replaces agent and expiry; different keys coexist', async () => {
    const { h, t, did, group, agent, now, post } = await setup();
    const agent2 = (await createAgent(h, t, { group })).agentId;
    const did2 = await createDid(h, t);
    const contact = num();
    await post('setSticky', { contact, agentId: agent, type: 'all', expiry: -1 });
    await post('setSticky', { contact, agentId: agent2, type: 'all', expiry: now + HOUR });
    await post('setSticky', { contact, agentId: agent, type: 'cli', cli: did, expiry: -1 });
    await post('setSticky', { contact, agentId: agent2, type: 'cli', cli: did2, expiry: -1 });
    const rows = (await post('getSticky', { contact })).body.data as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.type === '*')).toEqual({ agent: agent2, expiry: now + HOUR, type: '*' });
    void group;
  });

  it('expiry is honoured: an expired setting is gone for every read, and removal does not count it', async () => {
    const { h, agent, now, post } = await setup();
    const contact = num();
    await post('setSticky', { contact, agentId: agent, type: 'all', expiry: now + 10 });
    expect(((await post('getSticky', { contact })).body.data as unknown[]).length).toBe(1);
    h.clock.advance(10_000);
    expect((await post('getSticky', { contact })).body.data).toEqual([]);
    expect((await post('removeSticky', { contact, type: 'all' })).body).toMatchObject({ status: 'success', data: { removed: 0 } });
  });

  it('any integer expiry >= -1 is accepted: 0 or a past time is stored, never applies, and replaces an active setting of its key', async () => {
    const { h, t, did, agent, now, post } = await setup();
    const agent2 = (await createAgent(h, t)).agentId;
    const contact = num();
    for (const expiry of [0, now - 1, 1, '0', String(now - HOUR)]) {
      const res = await post('setSticky', { contact, agentId: agent, type: 'all', expiry });
      expect(res.body, String(expiry)).toEqual({ status: 'success', code: 200, message: 'Sticky agent set' });
    }
    expect((await post('getSticky', { contact })).body).toEqual({ status: 'success', code: 200, data: [] });
    // Setting the same key again replaces the active setting: a past expiry ends it at once.
    await post('setSticky', { contact, agentId: agent2, type: 'cli', cli: did, expiry: -1 });
    expect((await post('getSticky', { contact })).body.data).toEqual([{ agent: agent2, expiry: -1, type: 'cli', cli: did }]);
    await post('setSticky', { contact, agentId: agent, type: 'cli', cli: did, expiry: 0 });
    expect((await post('getSticky', { contact })).body.data).toEqual([]);
    // Routing ignores them too; removal finds nothing active to count.
    const facts = await h.post('/api/v2/route/decide', { ssid: t.ssid, caller: contact, did });
    expect(facts.body).toEqual({ status: 'success', code: 200, data: { blocked: false, dnc: 0 } });
    expect((await post('removeSticky', { contact, type: 'all' })).body).toMatchObject({ status: 'success', data: { removed: 0 } });
    // The largest value taken as seconds is 10^11; a millisecond time is refused saying so.
    expect((await post('setSticky', { contact, agentId: agent, type: 'all', expiry: 100_000_000_000 })).body.status).toBe('success');
    const ms = await post('setSticky', { contact, agentId: agent, type: 'all', expiry: (now + HOUR) * 1000 });
    expect(ms.body).toEqual({
      status: 'error',
      code: 1001,
      message: `Invalid data type or value: expiry ${(now + HOUR) * 1000} can only be milliseconds: Unix seconds are expected`,
    });
    expect((await post('getSticky', { contact })).body.data).toEqual([{ agent, expiry: 100_000_000_000, type: '*' }]);
  });

  it('error codes: 1501 agent, 1502 type, 1505 cli, 1506 group, 1507 not in group, 1508/1509/1001 expiry, 1005 contact, 1000 missing', async () => {
    const { h, t, did, group, agent, now, post } = await setup();
    const contact = num();
    const other = await createTenant(h);
    const foreignDid = await createDid(h, other);
    const foreignAgent = (await createAgent(h, other)).agentId;
    const inactive = (await createAgent(h, t, { status: 0 })).agentId;
    const outsider = (await createAgent(h, t)).agentId;
    const emptyGroup = await createGroup(h, t);
    const base = { contact, agentId: agent, type: 'all', expiry: -1 };
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ agentId: 987654321 }, 1501],
      [{ agentId: foreignAgent }, 1501],
      [{ agentId: inactive }, 1501],
      [{ agentId: 'abc' }, 1501],
      [{ type: 'group' }, 1502],
      [{ type: 3 }, 1502],
      [{ type: 'cli', cli: '5550000001' }, 1505],
      [{ type: 'cli', cli: foreignDid }, 1505],
      [{ type: 'cli', cli: 'x' }, 1505],
      [{ type: 'cli', cli: { a: 1 } }, 1505],
      [{ type: 'cli_group', cli: did, groupid: 424242 }, 1506],
      [{ type: 'cli_group', cli: did, groupid: 'g1' }, 1506],
      [{ type: 'cli_group', cli: did, groupid: emptyGroup }, 1507],
      [{ type: 'cli_group', cli: did, groupid: group, agentId: outsider }, 1507],
      [{ expiry: -2 }, 1508],
      [{ expiry: '-5' }, 1508],
      [{ expiry: now * 1000 }, 1001],
      [{ expiry: String((now + HOUR) * 1000) }, 1001],
      [{ expiry: 100_000_000_001 }, 1001],
      [{ expiry: 1.5 }, 1509],
      [{ expiry: 'soon' }, 1509],
      [{ expiry: { t: 1 } }, 1509],
      [{ contact: '123' }, 1005],
      [{ contact: undefined }, 1000],
      [{ agentId: undefined }, 1000],
      [{ type: undefined }, 1000],
      [{ expiry: undefined }, 1000],
      [{ type: 'cli' }, 1000],
      [{ type: 'cli_group', cli: did }, 1000],
    ];
    for (const [patch, code] of cases) {
      const res = await post('setSticky', { ...base, ...patch });
      expect(res.body.code, JSON.stringify(patch)).toBe(code);
      expect(res.body.status).toBe('error');
    }
    expect((await post('getSticky', { contact })).body.data).toEqual([]);
    expect((await post('getSticky', { contact, type: 'x' })).body.code).toBe(1502);
    // The read and remove filters give the same codes for a malformed cli, groupid or expiry.
    expect((await post('getSticky', { contact, cli: 'x' })).body.code).toBe(1505);
    expect((await post('getSticky', { contact, groupid: 'g1' })).body.code).toBe(1506);
    expect((await post('getSticky', { contact, expiry: 'soon' })).body.code).toBe(1509);
    expect((await post('getSticky', { contact, expiry: now * 1000 })).body.code).toBe(1001);
    expect((await post('removeSticky', { contact, type: 'cli', cli: 'x' })).body.code).toBe(1505);
    expect((await post('removeSticky', { contact, type: 'cli_group', groupid: 'g1' })).body.code).toBe(1506);
    expect((await post('getSticky', { contact: 'abc' })).body.code).toBe(1005);
    expect((await post('getSticky', {})).body.code).toBe(1000);
  });

  it('removeSticky: by agent, by scope narrowed by cli/groupid, everything with type all; data.removed counts', async () => {
    const { h, t, did, group, agent, post } = await setup();
    const agent2 = (await createAgent(h, t, { group })).agentId;
    const did2 = await createDid(h, t);
    const contact = num();
    const seed = async () => {
      await post('setSticky', { contact, agentId: agent, type: 'all', expiry: -1 });
      await post('setSticky', { contact, agentId: agent, type: 'cli', cli: did, expiry: -1 });
      await post('setSticky', { contact, agentId: agent2, type: 'cli', cli: did2, expiry: -1 });
      await post('setSticky', { contact, agentId: agent2, type: 'cli_group', cli: did, groupid: group, expiry: -1 });
    };
    const types = async () =>
      ((await post('getSticky', { contact })).body.data as Array<{ type: string; agent: number; cli?: string }>).map(
        (r) => `${r.type}:${r.agent}:${r.cli ?? ''}`,
      );
    await seed();
    const r1 = await post('removeSticky', { contact, type: 'cli', agentId: agent2 });
    expect(r1.body).toEqual({ status: 'success', code: 200, message: 'Sticky agent removed', data: { removed: 1 } });
    expect(await types()).toEqual([`cli_group:${agent2}:${did}`, `cli:${agent}:${did}`, `*:${agent}:`]);
    await seed();
    expect((await post('removeSticky', { contact, type: 'cli', cli: did })).body.data).toEqual({ removed: 1 });
    expect(await types()).toEqual([`cli_group:${agent2}:${did}`, `cli:${agent2}:${did2}`, `*:${agent}:`]);
    expect((await post('removeSticky', { contact, type: 'cli_group', groupid: group + 1 })).body.data).toEqual({ removed: 0 });
    expect((await post('removeSticky', { contact, type: 'cli_group', groupid: group })).body.data).toEqual({ removed: 1 });
    // type all with an agent: only that agent's all-scope setting.
    expect((await post('removeSticky', { contact, type: '*', agentId: agent2 })).body.data).toEqual({ removed: 0 });
    await seed();
    expect((await post('removeSticky', { contact, type: 'all' })).body.data).toEqual({ removed: 4 });
    expect(await types()).toEqual([]);
    const none = await post('removeSticky', { contact, type: 'all' });
    expect(none.body).toEqual({ status: 'success', code: 200, message: 'No sticky setting matched', data: { removed: 0 } });
    expect((await post('removeSticky', { contact, type: 'bogus' })).body.code).toBe(1502);
    expect((await post('removeSticky', { contact: '12', type: 'all' })).body.code).toBe(1005);
    expect((await post('removeSticky', { contact })).body.code).toBe(1000);
  });

  it("isolation: another tenant's agents, DIDs and settings behave like non-existent ones", async () => {
    const { h, did, agent, post } = await setup();
    const other = await createTenant(h);
    const contact = num();
    await post('setSticky', { contact, agentId: agent, type: 'cli', cli: did, expiry: -1 });
    const theirs = (path: string, body: Record<string, unknown>) => h.post(`/api/v2/Directory/${path}`, { ssid: other.ssid, ...body });
    expect((await theirs('getSticky', { contact })).body.data).toEqual([]);
    expect((await theirs('removeSticky', { contact, type: 'all' })).body.data).toEqual({ removed: 0 });
    expect((await theirs('setSticky', { contact, agentId: agent, type: 'all', expiry: -1 })).body.code).toBe(1501);
    const otherAgent = (await createAgent(h, other)).agentId;
    expect((await theirs('setSticky', { contact, agentId: otherAgent, type: 'cli', cli: did, expiry: -1 })).body.code).toBe(1505);
    expect(((await post('getSticky', { contact })).body.data as unknown[]).length).toBe(1);
  });
});
