import { defineOperation } from '../../http/operation.js';
import { toId } from '../../http/ids.js';
import { ConfigResponse, DeskResponse, EmptyBody, OriginateBody, OriginateResponse, SetStateBody, SetStateResponse, StateResponse } from './switch.schemas.js';
import type { SwitchService } from './switch.service.js';

export function switchOperations({ switches }: { switches: SwitchService }) {
  return [
    defineOperation({
      module: 'switch',
      name: 'config',
      writes: false,
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
      writes: false,
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
    defineOperation({
      module: 'call',
      name: 'originate',
      writes: true,
      audit: {
        // The call placed for the agent: the record names it and the number called.
        target: 'agent',
        id: ({ body }) => toId(body.agentId),
        changes: ({ body, result }) => ({
          originate: [null, { callId: (result as { data: { callId: string } }).data.callId, customer: String(body.customer).replace(/\D/g, '') }],
        }),
      },
      summary: 'Click-to-call: the switch rings the agent, then dials the customer',
      description:
        'Answers the callId at once; the call itself is placed by the switch connector, which receives a `call.originate` command on the ' +
        "stream (`{callId, agentId, agentNumber, customer, did, campaignId, ts, seq}`) and reports the call's events under that callId. " +
        "The vendor's `POST /api/v3/clickToCall/para?user_id=…&token=…&agent_number=…&customer=…[&customerCLI=…][&callFirst=…][&agentCLI=…]` " +
        '(no body) is the same operation. See docs/asterisk.md.',
      permission: 'call.originate',
      errorModule: 'agent',
      body: OriginateBody,
      response: OriginateResponse,
      errors: [1000, 1005, 1014, 1015, 1047, 1509, 1516],
      errorNotes: { 1509: 'no such agent (or one the caller may not see)', 1516: "the DID is not one of the account's" },
      examples: {
        request: { agentId: 12, customer: '+91 98111 00042', did: '18005550100' },
        response: { data: { callId: 'ctc-3f6c1c9e-8d1b-4b43-9d7e-0b8f4f6a2c11' } },
      },
      async handler({ principal, body }) {
        const data = await switches.originate(principal, {
          agentId: toId(body.agentId),
          customer: body.customer,
          did: body.did,
          campaignId: body.campaignId,
        });
        return { data };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'setState',
      writes: true,
      audit: {
        // Nothing stored changes (the switch reports the new state as events): the record names what was asked.
        target: 'agent',
        id: ({ body, principal }) => (body.agentId !== undefined ? toId(body.agentId) : principal.agentId),
        changes: ({ body }) => ({ state: [null, { state: body.state, reason: body.reason ?? null }] }),
      },
      summary: 'Ask the switch to make an agent ready, on break (with a reason) or logged out',
      description:
        'Pushes an `agent.state` command on the stream to the switch connectors (`{agentId, state, reason, groupIds, ts, seq}`; switch credentials ' +
        'only). The Asterisk connector maps it to QueueAdd / QueuePause / QueueRemove on the queues of the agent, the FreeSWITCH connector to ' +
        "`callcenter_config agent set status`. The agent's live state changes only when the switch reports it (`agent` on the stream): the agent " +
        "desk shows that, never the request. An agent sets its own state without a permission; another agent's state needs agent.manage. " +
        'See docs/agent-desk.md.',
      errorModule: 'agent',
      body: SetStateBody,
      response: SetStateResponse,
      errors: [1000, 1014, 1015, 1047, 1509],
      errorNotes: {
        1000: "a break reason that is not one of the account's, a reason without break, or no agentId from a client",
        1015: "another agent's state without agent.manage, or switch credentials",
        1509: 'no such agent (or one the caller may not see)',
      },
      examples: { request: { state: 'break', reason: 'lunch' }, response: { data: { seq: 1242 } } },
      async handler({ principal, body }) {
        const data = await switches.setState(principal, {
          agentId: body.agentId !== undefined ? toId(body.agentId) : undefined,
          state: body.state,
          reason: body.reason,
        });
        return { data };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'desk',
      writes: false,
      summary: "The calling agent's desk: who it is, its groups, the account's break reasons and its live state as the switch reported it",
      description:
        "For agent principals (no permission needed: an agent reads itself). `state` is the stream's `agent` message of the agent (null before " +
        'any event about it); `lstSync` is where the stream continues from. See docs/agent-desk.md.',
      principals: ['agent'],
      errorModule: 'agent',
      body: EmptyBody,
      response: DeskResponse,
      errors: [1014, 1015, 1047],
      examples: {
        request: {},
        response: {
          data: {
            lstSync: 1241,
            agentId: 12,
            name: 'Asha',
            groups: [{ groupId: 55, name: 'sales' }],
            breakReasons: ['break', 'lunch', 'training', 'meeting'],
            state: {
              agentId: 12,
              state: 'break',
              loggedIn: true,
              loginType: 'SIP',
              sipStatus: 'online',
              breakReason: 'lunch',
              callId: null,
              ringingCallId: null,
              since: 1763812345.2,
              seq: 1240,
            },
          },
        },
      },
      async handler({ principal }) {
        return { data: await switches.desk(principal) };
      },
    }),
  ];
}
