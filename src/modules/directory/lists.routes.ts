import { normaliseContact } from '../../http/contact.js';
import { defineOperation } from '../../http/operation.js';
import { BlacklistBody, BlacklistResponse, GetDncBody, GetDncResponse, MessageResponse, SetDncBody } from './directory.schemas.js';
import type { DncService } from './dnc.service.js';
import type { BlacklistService } from './blacklist.service.js';

/** Directory/getDnc, setDnc (also at /api/v2/getDnc, /api/v2/setDnc) and Directory/Blacklist. */
export function listOperations({ dnc, blacklist }: { dnc: DncService; blacklist: BlacklistService }) {
  return [
    defineOperation({
      module: 'Directory',
      name: 'getDnc',
      writes: false,
      aliases: ['/api/v2/getDnc'],
      summary: 'DNC status of a number: 0, -1 (permanent) or the Unix time it ends',
      permission: 'directory.view',
      errorModule: 'directory',
      body: GetDncBody,
      response: GetDncResponse,
      errors: [1000, 1005, 1014, 1015, 1047],
      examples: { request: { contact: '919811100077' }, response: { data: { dnc: -1 } } },
      async handler({ principal, body }) {
        return { data: { dnc: await dnc.get(principal.accountId, normaliseContact(body.contact)) } };
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'setDnc',
      writes: true,
      audit: { target: 'dnc', id: ({ body }) => normaliseContact(body.contact) },
      aliases: ['/api/v2/setDnc'],
      summary: 'Set the DNC status of a number: 0 removes, -1 permanent, or a future Unix timestamp',
      permission: 'dnc.manage',
      errorModule: 'directory',
      body: SetDncBody,
      response: MessageResponse,
      errors: [1000, 1001, 1005, 1014, 1015, 1047],
      examples: { request: { contact: '+91 98111 00077', dnc: -1 }, response: { message: 'DNC status set' } },
      async handler({ principal, body }) {
        const value = await dnc.set(principal.accountId, normaliseContact(body.contact), body.dnc);
        return { message: value === 0 ? 'Contact removed from the DNC list' : 'DNC status set' };
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'Blacklist',
      writes: true,
      audit: {
        target: 'blacklist',
        id: ({ body }) => (body.contact === undefined || body.contact === null || String(body.contact).trim() === '' ? null : normaliseContact(body.contact)),
        // A reset clears every contact's entries: the record holds how many, not each one.
        changes: ({ result }) => {
          const data = (result as { data: { cleared?: number } } | undefined)?.data;
          return data?.cleared !== undefined ? { entries: [data.cleared, 0] } : undefined;
        },
      },
      summary: "Set the DIDs a number is blocked on ([] removes it); blank contact with RESET 1 clears the account's blacklist",
      permission: 'blacklist.manage',
      errorModule: 'directory',
      body: BlacklistBody,
      response: BlacklistResponse,
      errors: [1000, 1001, 1005, 1014, 1015, 1047, 1516],
      errorNotes: { 1516: "Invalid DID number: an entry of DID is not a number, or not one of the account's DIDs" },
      examples: {
        request: { contact: '919811100099', DID: ['18005550100'] },
        response: { message: 'Blacklist updated', data: { contact: '919811100099', DID: ['18005550100'] } },
      },
      async handler({ principal, body }) {
        const result = await blacklist.apply(principal.accountId, body);
        const message = 'cleared' in result ? 'Blacklist cleared' : result.DID.length ? 'Blacklist updated' : 'Contact removed from the blacklist';
        return { message, data: result };
      },
    }),
  ];
}
