import { normaliseContact } from '../../http/contact.js';
import { defineOperation } from '../../http/operation.js';
import { GetStickyBody, GetStickyResponse, MessageResponse, RemoveStickyBody, RemoveStickyResponse, SetStickyBody } from './directory.schemas.js';
import type { StickyService } from './sticky.service.js';

const id = (v: string | number | undefined) => (v === undefined ? undefined : Number(v));

/** Directory/setSticky, getSticky, removeSticky. */
export function stickyOperations({ sticky }: { sticky: StickyService }) {
  return [
    defineOperation({
      module: 'Directory',
      name: 'setSticky',
      writes: true,
      audit: { target: 'sticky', id: ({ body }) => normaliseContact(body.contact) },
      summary: 'Assign a sticky agent to a contact for a scope (all, cli, cli_group)',
      permission: 'sticky.manage',
      errorModule: 'directory',
      body: SetStickyBody,
      response: MessageResponse,
      errors: [1000, 1001, 1005, 1014, 1015, 1047, 1501, 1502, 1505, 1506, 1507, 1508, 1509],
      examples: {
        request: { contact: '919811100042', agentId: 12, type: 'cli', cli: '18005550100', expiry: -1 },
        response: { message: 'Sticky agent set' },
      },
      async handler({ principal, body }) {
        const contact = normaliseContact(body.contact);
        await sticky.set(principal.accountId, contact, { ...body, agentId: Number(body.agentId) });
        return { message: 'Sticky agent set' };
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'getSticky',
      writes: false,
      summary: 'A contact\'s active sticky settings (all-scope rows have type "*")',
      permission: 'directory.view',
      errorModule: 'directory',
      body: GetStickyBody,
      response: GetStickyResponse,
      errors: [1000, 1001, 1005, 1014, 1015, 1047, 1502, 1505, 1506, 1509],
      examples: {
        request: { contact: '919811100042' },
        response: {
          data: [
            { agent: 12, expiry: -1, type: 'cli', cli: '18005550100' },
            { agent: 13, expiry: 1769904000, type: '*' },
          ],
        },
      },
      async handler({ principal, body }) {
        const contact = normaliseContact(body.contact);
        return { data: await sticky.get(principal.accountId, contact, { ...body, agentId: id(body.agentId) }) };
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'removeSticky',
      writes: true,
      audit: { target: 'sticky', id: ({ body }) => normaliseContact(body.contact) },
      summary: 'Remove sticky settings of a contact; data.removed counts them',
      permission: 'sticky.manage',
      errorModule: 'directory',
      body: RemoveStickyBody,
      response: RemoveStickyResponse,
      errors: [1000, 1005, 1014, 1015, 1047, 1502, 1505, 1506],
      examples: {
        request: { contact: '919811100042', type: 'cli', cli: '18005550100' },
        response: { message: 'Sticky agent removed', data: { removed: 1 } },
      },
      async handler({ principal, body }) {
        const contact = normaliseContact(body.contact);
        const removed = await sticky.remove(principal.accountId, contact, { ...body, agentId: id(body.agentId) });
        return { message: removed > 0 ? 'Sticky agent removed' : 'No sticky setting matched', data: { removed } };
      },
    }),
  ];
}
