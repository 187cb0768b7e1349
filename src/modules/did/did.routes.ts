import { didDigits } from './did.service.js';
import { defineOperation } from '../../http/operation.js';
import { CreateDidBody, DeleteDidBody, DidResponse, ListDidsBody, ListDidsResponse } from './did.schemas.js';
import type { DidService } from './did.service.js';

export function didOperations({ dids }: { dids: DidService }) {
  return [
    defineOperation({
      module: 'did',
      name: 'create',
      writes: true,
      audit: { target: 'did', created: ({ result }) => (result as { data: { did: string } }).data.did },
      summary: 'Add a number (DID) to the account; a number belongs to one account',
      permission: 'number.manage',
      errorModule: 'agent',
      body: CreateDidBody,
      response: DidResponse,
      errors: [1000, 1014, 1015, 1047, 1516],
      examples: { request: { did: '+1 800 555 0100', name: 'Main line' }, response: { message: 'DID created', data: { did: '18005550100' } } },
      async handler({ principal, body }) {
        const did = await dids.create(principal.accountId, body.did, body.name?.trim() ?? '');
        return { message: 'DID created', data: { did } };
      },
    }),
    defineOperation({
      module: 'did',
      name: 'delete',
      writes: true,
      audit: { target: 'did', id: ({ body }) => didDigits(body.did) },
      summary: "Remove one of the account's numbers",
      permission: 'number.manage',
      errorModule: 'agent',
      body: DeleteDidBody,
      response: DidResponse,
      errors: [1000, 1014, 1015, 1047, 1516],
      examples: { request: { did: '18005550199' }, response: { message: 'DID deleted', data: { did: '18005550199' } } },
      async handler({ principal, body }) {
        const did = await dids.remove(principal.accountId, body.did);
        return { message: 'DID deleted', data: { did } };
      },
    }),
    defineOperation({
      module: 'did',
      name: 'list',
      writes: false,
      summary: "The account's numbers",
      permission: 'number.manage',
      body: ListDidsBody,
      response: ListDidsResponse,
      errors: [1014, 1015, 1047],
      examples: { request: {}, response: { data: [{ did: '18005550100', name: 'Main line', create_date: 1768035600 }] } },
      async handler({ principal }) {
        return { data: await dids.list(principal.accountId) };
      },
    }),
  ];
}
