import { Answer } from '../../http/answer.js';
import { defineOperation } from '../../http/operation.js';
import { LiveBody, LiveResponse } from './live.schemas.js';
import type { LiveService } from './live.service.js';

export function liveOperations({ live }: { live: LiveService }) {
  return [
    defineOperation({
      module: 'Agent',
      name: 'live',
      writes: false,
      summary: 'Live agent statistics (state, login, break, talk time today) and summary counters',
      permission: 'agent.live',
      errorModule: 'agent',
      body: LiveBody,
      response: LiveResponse,
      errors: [1000, 1006, 1014, 1015, 1047, 1502],
      examples: {
        request: { groupid: 55, status: 'login' },
        response: {
          message: {
            pr: [
              {
                I: '12',
                nm: 'Priya Sharma',
                avT: ['00', '00', '12'],
                avD: 0,
                liC: {
                  callId: 'c-981',
                  state: 'connected',
                  caller: '919811100042',
                  did: '18005550100',
                  groupId: 55,
                  direction: 'inbound',
                  onHold: false,
                  duration: ['00', '00', '48'],
                },
                l: { type: 'Web', duration: ['00', '01', '00'] },
                ml: 'No',
                IsOcc: 1,
                mic_perm: 1,
                sip_status: 'offline',
                tt: 48,
                tC: 1,
                ataT: ['00', '00', '48'],
                br: {},
              },
              {
                I: '13',
                nm: 'Tom Berg',
                avT: ['00', '01', '00'],
                avD: 1768035600,
                liC: {},
                l: { type: 'SIP', duration: ['00', '01', '00'] },
                ml: 'No',
                IsOcc: 0,
                mic_perm: 1,
                sip_status: 'online',
                tt: 0,
                tC: 0,
                ataT: ['00', '00', '00'],
                br: {},
              },
            ],
            oCA: 1,
            oBA: 0,
            lA: 2,
            Dia: 0,
            Ring: 0,
          },
        },
      },
      async handler({ principal, body }) {
        return Answer.sharedView(await live.agentsLive(principal, body));
      },
    }),
  ];
}
