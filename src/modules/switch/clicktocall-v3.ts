import type { FastifyRequest } from 'fastify';
import { fail } from '../../errors/catalogue.js';
import { defineSurface } from '../../http/surface.js';
import type { SwitchService } from './switch.service.js';

function one(v: unknown): string | undefined {
  if (Array.isArray(v)) return one(v[0]);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

interface V3Input {
  agentNumber: string;
  customer: string;
  customerCli: string | undefined;
  callFirst: 'agent' | 'customer';
  agentCli: string | undefined;
}

/**
 * The vendor's click-to-call, `POST /api/v3/clickToCall/para` with query
 * parameters and no body (PRODUCT.md §10): `user_id`, `token`,
 * `agent_number` (the agent's phone), `customer`, optional `customerCLI`
 * (the DID shown to the customer), `callFirst` (`agent`, the default, or
 * `customer`: recorded; the connector always rings the agent first) and
 * `agentCLI` (recorded). The answer is call/originate's. A surface
 * (http/surface.ts): admitted like every operation (the token form from the
 * query, `call.originate`), and audited like call/originate, under its own
 * name. Not in the OpenAPI document, which lists /api/v2 operations;
 * docs/asterisk.md has it.
 */
export function clickToCallV3(switches: SwitchService) {
  return defineSurface({
    method: 'POST',
    url: '/api/v3/clickToCall/para',
    module: 'clickToCall',
    name: 'para',
    credentials: 'user_id+token',
    permission: 'call.originate',
    kindRefusal: () => 'switch credentials may not place calls',
    errorModule: 'agent',
    schema: { hide: true },
    writes: true,
    audit: {
      target: 'agent',
      id: ({ prepared }) => prepared as number,
      changes: ({ body, result }) => ({
        originate: [null, { callId: (result as { data: { callId: string } }).data.callId, customer: body.customer.replace(/\D/g, '') }],
      }),
    },
    input(request: FastifyRequest): V3Input {
      const q = (request.query ?? {}) as Record<string, unknown>;
      const agentNumber = one(q.agent_number);
      const customer = one(q.customer);
      if (agentNumber === undefined) throw fail(1000, 'agent_number is required');
      if (customer === undefined) throw fail(1000, 'customer is required');
      const callFirst = one(q.callFirst) ?? 'agent';
      if (callFirst !== 'agent' && callFirst !== 'customer') throw fail(1000, 'callFirst must be agent or customer');
      return { agentNumber, customer, customerCli: one(q.customerCLI), callFirst, agentCli: one(q.agentCLI) };
    },
    /** The agent id (the audit target), found before the audited transaction opens. */
    prepare: ({ principal, body }) => switches.agentByNumber(principal, body.agentNumber),
    async handler({ principal, body, prepared }) {
      const agentId = prepared as number;
      const data = await switches.originate(principal, {
        agentId,
        customer: body.customer,
        did: body.customerCli,
        callFirst: body.callFirst,
        agentCli: body.agentCli,
      });
      return { status: 'success', code: 200, data };
    },
  });
}
