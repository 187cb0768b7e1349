import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Health } from './health.js';

describe('Health', () => {
  it('--status-port answers the report as JSON: 503 until the switch is connected, then 200', async () => {
    const h = new Health('asterisk', () => 1_800_000_000_000);
    const server = await h.listen(0);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const down = await fetch(url);
      expect(down.status).toBe(503);
      h.switchState = 'connected';
      h.eventsForwarded = 7;
      h.error('events/ingest failed: service unreachable');
      const up = await fetch(url);
      expect(up.status).toBe(200);
      expect(await up.json()).toMatchObject({
        switch: 'asterisk',
        switchState: 'connected',
        eventsForwarded: 7,
        lastError: { at: 1_800_000_000, message: 'events/ingest failed: service unreachable' },
      });
      expect(h.line()).toBe(
        'status asterisk=connected service-stream=connecting forwarded=7 duplicates=0 rejected=0 skipped=0 commands=0 commands-skipped=0 ' +
          'last-error=2027-01-15T08:00:00.000Z events/ingest failed: service unreachable',
      );
    } finally {
      server.close();
    }
  });
});
