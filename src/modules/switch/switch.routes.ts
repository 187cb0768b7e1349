import { defineOperation } from '../../http/operation.js';
import { ConfigResponse, EmptyBody, StateResponse } from './switch.schemas.js';
import type { SwitchService } from './switch.service.js';

export function switchOperations({ switches }: { switches: SwitchService }) {
  return [
    defineOperation({
      module: 'switch',
      name: 'config',
      summary: "What a switch connector maps with: the account's groups, agents with their SIP destinations, and DIDs",
      description:
        'A switch queue is the group whose name equals the queue name; a queue member (`PJSIP/5001`, `Local/5001@ctx/n`, `5001@default`) is the ' +
        'agent whose `dest_value` names that extension (`sip:5001@host`). Connectors read it at start, every 60 s and when a name is unknown. ' +
        'See docs/asterisk.md.',
      principals: ['client', 'switch'],
      body: EmptyBody,
      response: ConfigResponse,
      errors: [1014, 1015, 1047],
      examples: {
        request: {},
        response: {
          data: {
            groups: [{ groupId: 55, name: 'sales' }],
            agents: [{ agentId: 12, name: 'Asha', dest_type: 'SIP', dest_value: 'sip:5001@pbx.example.com', phone: '919811100042' }],
            dids: ['18005550100'],
          },
        },
      },
      async handler({ principal }) {
        return { data: await switches.config(principal.accountId) };
      },
    }),
    defineOperation({
      module: 'switch',
      name: 'state',
      summary: 'The live calls and agent sessions the service holds, which a connector reconciles with the switch after a (re)connect',
      description:
        'After every (re)connect a connector compares this with what the switch reports (Asterisk `QueueStatus`): calls the switch no longer ' +
        'has are ended, members it does not report are logged out. See docs/asterisk.md.',
      principals: ['client', 'switch'],
      body: EmptyBody,
      response: StateResponse,
      errors: [1014, 1015, 1047],
      examples: {
        request: {},
        response: {
          data: {
            lstSync: 1240,
            calls: [{ callId: '1732460400.42', state: 'ringing', groupId: 55, agentId: null, ringingAgentId: 12 }],
            agents: [{ agentId: 12, loggedIn: true, breakReason: null }],
          },
        },
      },
      async handler({ principal }) {
        return { data: await switches.state(principal.accountId) };
      },
    }),
  ];
}
