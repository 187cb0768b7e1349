import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { prepareSimulation } from '../../src/simulator/session.js';
import { injectTransport } from '../../src/simulator/transport.js';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sim-recordings-'));

type Report = {
  callId: string;
  callStatus: number;
  recordings: Array<{ nodeid: string | null; file: string }>;
  nHDetail: Array<{ nodeId: string; recording: string | null }>;
};

forEachDatabase(
  'the simulator records answered calls: WAV files under RECORDINGS_DIR, reported, playable through directstream',
  (use) => {
    it('every answered call has one recording on its answering leg; the file is a real WAV served as audio/wav', async () => {
      const h = use();
      const t = await createTenant(h);
      const g = await createGroup(h, t);
      const did = await createDid(h, t);
      const agents: number[] = [];
      for (let i = 0; i < 3; i++) agents.push((await createAgent(h, t, { group: g })).agentId);
      const { runner, model } = await prepareSimulation({
        transport: injectTransport(h.app, { ssid: t.ssid }),
        clock: h.clock,
        topology: { routes: [{ did, groupId: g }], groups: [{ groupId: g, agentIds: agents }], callers: [] },
        traffic: { ratePerMin: 12, talkSecs: 30, loggedInShare: 1, breaksPerHour: 0 },
        seed: 4,
        recordingsDir: dir,
      });
      for (let i = 0; i < 60; i++) {
        h.clock.advance(5000);
        await runner.tick();
      }
      await runner.shutdown();
      expect(runner.progress.errors).toBe(0);
      const reports: Report[] = [];
      for (let cursor: string | null | undefined; ;) {
        const res = await h.post<{ data: Report[]; nextCursor: string | null }>('/api/v2/CallReport/list', {
          ssid: t.ssid,
          limit: 1000,
          ...(cursor ? { cursor } : {}),
        });
        reports.push(...res.body.data);
        cursor = res.body.nextCursor;
        if (!cursor) break;
      }
      const completed = reports.filter((r) => r.callStatus === 3);
      // The shutdown ends calls still talking without a recording; every call that hung up normally has one.
      expect(completed.length).toBeGreaterThan(10);
      const recorded = completed.filter((r) => r.recordings.length > 0);
      expect(recorded.length).toBe(model.stats.completed);
      for (const r of recorded) {
        expect(r.recordings).toHaveLength(1);
        const leg = r.nHDetail.find((l) => l.nodeId === r.recordings[0]!.nodeid)!;
        expect(leg.recording).toBe(r.recordings[0]!.file);
        expect(r.recordings[0]!.file).toMatch(/^\d{4}\/\d{2}\/\d{2}\/[A-Za-z0-9._-]+\.wav$/);
        expect(readFileSync(path.join(dir, r.recordings[0]!.file)).toString('ascii', 0, 4)).toBe('RIFF');
      }
      const detail = await h.post<{ data: { rcrdAr: Array<{ rcrd: string }> } }>('/api/v2/CallReport/detail', {
        ssid: t.ssid,
        clId: recorded[0]!.callId,
        rType: ['rcrd'],
      });
      const audio = await h.app.inject({ method: 'GET', url: `/api/v2/recording/directstream/${detail.body.data.rcrdAr[0]!.rcrd.split('*').join('/')}` });
      expect(audio.statusCode).toBe(200);
      expect(audio.headers['content-type']).toBe('audio/wav');
      expect(audio.rawPayload.length).toBe(44 + 16000); // 2 s at 8 kHz, 8-bit
    });
  },
  { config: { recordingsDir: dir } },
);
