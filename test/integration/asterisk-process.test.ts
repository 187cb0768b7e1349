import { spawn } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { FakeAmi } from '../helpers/ami-server.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { baseUrl, closeReaders } from '../helpers/sse.js';
import { agentLive, memberEvent, waitFor } from './asterisk.fixtures.js';
import { nowSec } from './events.fixtures.js';

afterAll(closeReaders);

forEachDatabase('callcenter connect asterisk as its own process', (use) => {
  it('runs from the command line with the token in the environment: status port, SIGUSR1 line, events through, SIGTERM logs off and exits 0', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t, { name: 'sales' });
    const agent = await createAgent(h, t, { group: g, dest_type: 'SIP', dest_value: 'sip:5003@pbx' });
    const token = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    const fake = new FakeAmi();
    await fake.start();
    const statusPort = await freePort();
    const child = spawn(
      process.execPath,
      ['bin/callcenter.js', 'connect', 'asterisk', '--ami', `127.0.0.1:${fake.port}`, '--ami-user', 'callcenter', '--status-port', String(statusPort)],
      {
        env: {
          ...process.env,
          CALLCENTER_API_URL: await baseUrl(h),
          CALLCENTER_USER_ID: token.body.userId,
          CALLCENTER_TOKEN: token.body.token,
          CALLCENTER_AMI_SECRET: 's3cret',
        },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    try {
      await waitFor(() => stderr.includes('ami: connected'), 'the connector to log in', 30_000);
      const status = await fetch(`http://127.0.0.1:${statusPort}/`);
      expect(status.status).toBe(200);
      expect(await status.json()).toMatchObject({ switch: 'asterisk', switchState: 'connected' });
      await fake.send(memberEvent('QueueMemberAdded', nowSec(h), '5003', false));
      await waitFor(() => fake.actions.length > 0, 'actions', 20_000);
      let state: unknown;
      // Generous waits: a child process on a loaded machine is slow.
      for (let i = 0; i < 400 && state !== 'available'; i++) {
        state = ((await agentLive(h, t.ssid)).get(agent.agentId)!.ex as Record<string, unknown>).state;
        if (state !== 'available') await new Promise((r) => setTimeout(r, 50));
      }
      expect(state).toBe('available');
      child.kill('SIGUSR1');
      await waitFor(() => /status asterisk=connected service-stream=\w+ forwarded=1 /.test(stderr), 'the SIGUSR1 line', 20_000);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(fake.actions.some((a) => a.Action === 'Logoff')).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await fake.close();
    }
  }, 120_000);
});
