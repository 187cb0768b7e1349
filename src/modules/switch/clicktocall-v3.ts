import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../../auth/auth.service.js';
import { credentialsFromBody } from '../../auth/credentials.js';
import { fail } from '../../errors/catalogue.js';
import type { AuditRecorder, Operation } from '../../http/operation.js';
import type { SwitchService } from './switch.service.js';

const PATH = '/api/v3/clickToCall/para';

function one(v: unknown): string | undefined {
  if (Array.isArray(v)) return one(v[0]);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The vendor's click-to-call, `POST /api/v3/clickToCall/para` with query
 * parameters and no body (PRODUCT.md §10): `user_id`, `token`,
 * `agent_number` (the agent's phone), `customer`, optional `customerCLI`
 * (the DID shown to the customer), `callFirst` (`agent`, the default, or
 * `customer`: recorded; the connector always rings the agent first) and
 * `agentCLI` (recorded). The answer is call/originate's. Not in the
 * OpenAPI document, which lists /api/v2 operations; docs/asterisk.md has it.
 */
/** How the audit trail names and records it: as call/originate, under its own path. */
const AUDITED = {
  module: 'clickToCall',
  name: 'para',
  writes: true,
  audit: {
    target: 'agent',
    id: ({ body }: { body: { agentId: number } }) => body.agentId,
    changes: ({ body, result }: { body: { customer: string }; result?: object }) => ({
      originate: [null, { callId: (result as { data: { callId: string } }).data.callId, customer: body.customer.replace(/\D/g, '') }],
    }),
  },
} as unknown as Operation;

export function registerClickToCallV3(app: FastifyInstance, auth: AuthService, switches: SwitchService, audit?: AuditRecorder): void {
  app.post(PATH, { schema: { hide: true }, config: { errorModule: 'agent' } }, async (request) => {
    const q = (request.query ?? {}) as Record<string, unknown>;
    const principal = await auth.resolve(credentialsFromBody({ userId: one(q.user_id), token: one(q.token) }));
    if (principal.kind === 'switch') throw fail(1015, 'switch credentials may not place calls');
    if (!principal.permissions.has('call.originate')) throw fail(1015, 'missing permission call.originate');
    const agentNumber = one(q.agent_number);
    const customer = one(q.customer);
    if (agentNumber === undefined) throw fail(1000, 'agent_number is required');
    if (customer === undefined) throw fail(1000, 'customer is required');
    const callFirst = one(q.callFirst) ?? 'agent';
    if (callFirst !== 'agent' && callFirst !== 'customer') throw fail(1000, 'callFirst must be agent or customer');
    const agentId = await switches.agentByNumber(principal, agentNumber);
    const place = async () => ({
      status: 'success',
      code: 200,
      data: await switches.originate(principal, { agentId, customer, did: one(q.customerCLI), callFirst, agentCli: one(q.agentCLI) }),
    });
    return audit ? audit.record(AUDITED, { principal, body: { agentId, customer }, request }, place) : place();
  });
}
