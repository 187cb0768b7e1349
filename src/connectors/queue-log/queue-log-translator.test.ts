import { describe, expect, it } from 'vitest';
import type { SwitchEvent } from '../core/api-client.js';
import { VisitCounter, compareLines, parseQueueLogLine } from './queue-log-line.js';
import { QueueLogTranslator } from './queue-log-translator.js';

/** Members PJSIP/50NN are agent NN; queue `sales` is group 7, others unknown. */
function run(text: string): { events: Array<Omit<SwitchEvent, 'eventId'>>; unknown: number } {
  const events: Array<Omit<SwitchEvent, 'eventId'>> = [];
  const groups: Record<string, number> = { sales: 7, overflow: 8 };
  const t = new QueueLogTranslator(
    { group: (q) => groups[q], agent: (m) => (/50(\d\d)$/.exec(m) ? Number(/50(\d\d)$/.exec(m)![1]) : undefined) },
    ({ eventId: _, ...e }) => void events.push(e),
  );
  const visits = new VisitCounter();
  const lines = text
    .trim()
    .split('\n')
    .map((l, i) => visits.mark(parseQueueLogLine(l.trim(), i)!))
    .sort(compareLines);
  for (const l of lines) t.line(l);
  t.endStale(Math.max(...lines.map((l) => l.time)));
  return { events, unknown: t.unknownLines };
}

describe('queue_log → events', () => {
  it('defers a pause written during a call to its end, and logs out with the last queue only', () => {
    const { events } = run(`
      100|MANAGER|sales|PJSIP/5001|ADDMEMBER|
      100|MANAGER|support|PJSIP/5001|ADDMEMBER|
      110|c1|sales|NONE|ENTERQUEUE||919800000001|1
      115|c1|sales|PJSIP/5001|CONNECT|5|c1b|2
      120|NONE|NONE|PJSIP/5001|PAUSE|coffee
      120|NONE|sales|PJSIP/5001|PAUSE|coffee
      130|c1|sales|PJSIP/5001|COMPLETEAGENT|5|15|1
      200|MANAGER|sales|PJSIP/5001|REMOVEMEMBER|
      300|MANAGER|support|PJSIP/5001|REMOVEMEMBER|`);
    expect(events.map((e) => [e.type, e.ts])).toEqual([
      ['agent.login', 100],
      ['call.queued', 110],
      ['call.ringing', 113],
      ['call.answered', 115],
      ['call.ended', 130],
      ['agent.break.start', 130],
      ['agent.logout', 300],
    ]);
  });

  it('EXITEMPTY is abandoned, a foreign call ends without a reason, an unknown queue is skipped, a call without exit ends 4 h later', () => {
    const { events, unknown } = run(`
      100|c2|sales|NONE|ENTERQUEUE||919800000002|1
      101|c2|sales|NONE|EXITEMPTY|1|1|1
      102|old|sales|PJSIP/5002|COMPLETECALLER|5|60|1
      103|c3|billing|NONE|ENTERQUEUE||919800000003|1
      104|c3|billing|NONE|ABANDON|1|1|1
      110|c4|sales|NONE|ENTERQUEUE||919800000004|1
      120|c4|sales|PJSIP/5003|RINGNOANSWER|5000
      130|NONE|NONE|NONE|QUEUESTART|
      14521|NONE|NONE|NONE|CONFIGRELOAD|`);
    expect(unknown).toBe(2);
    expect(events.map((e) => [e.type, e.callId, e.ts, e.reason])).toEqual([
      ['call.queued', 'c2', 100, undefined],
      ['call.ended', 'c2', 101, 'abandoned'],
      ['call.ended', 'old', 102, undefined],
      ['call.queued', 'c4', 110, undefined],
      ['agent.login', undefined, 115, undefined],
      ['call.ringing', 'c4', 115, undefined],
      ['call.missed', 'c4', 120, undefined],
      // Any line 4 h past c4's last line (an unknown one too) ends it there.
      ['call.ended', 'c4', 120, 'abandoned'],
    ]);
    expect(events[4]).toMatchObject({ type: 'agent.login', agentId: 3 });
    // Less than 4 h later: still open.
    const sooner = run(`
      110|c4|sales|NONE|ENTERQUEUE||919800000004|1
      120|c4|sales|PJSIP/5003|RINGNOANSWER|5000
      14519|c5|sales|NONE|ENTERQUEUE||919800000005|1`);
    expect(sooner.events.filter((e) => e.type === 'call.ended')).toEqual([]);
  });

  it('every queue visit is a call: an overflow after EXITWITHTIMEOUT and a loop back are new calls retrying the one before', () => {
    // As Asterisk writes an overflow: the exit and the next ENTERQUEUE in the same second (sorting keeps them in that order).
    const { events } = run(`
      100|1658814295.0|sales|NONE|DID|7777
      100|1658814295.0|sales|NONE|ENTERQUEUE||1001|1
      120|1658814295.0|overflow|NONE|ENTERQUEUE||1001|1
      120|1658814295.0|sales|NONE|EXITWITHTIMEOUT|1|1|20
      150|1658814295.0|overflow|NONE|EXITWITHKEY|5|1|1
      150|1658814295.0|sales|NONE|ENTERQUEUE||1001|1
      155|1658814295.0|sales|PJSIP/5001|CONNECT|5|1658814329.3|5
      160|1658814295.0|sales|PJSIP/5001|COMPLETECALLER|5|5|1`);
    expect(events.filter((e) => e.type.startsWith('call.')).map((e) => [e.type, e.callId, e.ts, e.retryOf ?? e.reason ?? e.groupId])).toEqual([
      ['call.queued', '1658814295.0', 100, 7],
      ['call.ended', '1658814295.0', 120, 'abandoned'],
      ['call.queued', '1658814295.0-v2', 120, '1658814295.0'],
      ['call.ended', '1658814295.0-v2', 150, 'abandoned'],
      ['call.queued', '1658814295.0-v3', 150, '1658814295.0-v2'],
      ['call.ringing', '1658814295.0-v3', 150, undefined],
      ['call.answered', '1658814295.0-v3', 155, undefined],
      ['call.ended', '1658814295.0-v3', 160, 'completed'],
    ]);
    // The DID line of the channel holds for each of its visits.
    expect(events.filter((e) => e.type === 'call.queued').map((e) => e.did)).toEqual(['7777', '7777', '7777']);
  });

  it("a visit left without an exit line ends at the channel's next ENTERQUEUE; RINGCANCELED is a missed offer", () => {
    const { events } = run(`
      100|c9|sales|NONE|ENTERQUEUE||1001|1
      112|c9|sales|PJSIP/5001|RINGCANCELED|11193
      130|c9|overflow|NONE|ENTERQUEUE||1001|1
      135|c9|overflow|NONE|ABANDON|1|1|5`);
    expect(events.filter((e) => e.type.startsWith('call.')).map((e) => [e.type, e.callId, e.ts, e.reason])).toEqual([
      ['call.queued', 'c9', 100, undefined],
      ['call.ringing', 'c9', 100.807, undefined],
      ['call.missed', 'c9', 112, undefined],
      ['call.ended', 'c9', 130, 'abandoned'],
      ['call.queued', 'c9-v2', 130, undefined],
      ['call.ended', 'c9-v2', 135, 'abandoned'],
    ]);
  });
});
