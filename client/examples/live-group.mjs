/* global process, console */
// The example of docs/client.md, run as written by .ci/check-client.sh from a plain Node project
// that installed the packed client. Against a server started with CALLCENTER_DEMO=1 (the demo
// tenant "demo" and its group 55).
import { ApiError, createClient } from '@callcenter/client';

const api = createClient({ baseUrl: process.env.CALLCENTER_URL ?? 'http://127.0.0.1:8080' });
await api.login('demo', 'demo-password'); // keeps the ssid for every later call

const live = await api.call('Agent/live', { groupid: '55' });
console.log(`group 55: ${live.message.lA} agents logged in, ${live.message.oCA} on a call`);

const agents = await api.call('Agent/list', { groupid: '55' }); // full records (no `quick`)
console.log('first agent:', agents.response[0]?.name, '·', agents.response[0]?.roleName);

try {
  await api.call('Agent/live', { groupid: '999' });
} catch (err) {
  if (err instanceof ApiError && err.code === 1006) console.log('group 999: no such group (1006)');
  else throw err;
}
await api.logout();
