import { contactDigits } from '../../http/contact.js';
import { toId } from '../../http/ids.js';
import { defineOperation } from '../../http/operation.js';
import {
  AddContactBody,
  ClIdResponse,
  ContactIdResponse,
  ContactsBody,
  ContactsResponse,
  CreateListBody,
  DeleteContactBody,
  DeleteListBody,
  ImportBody,
  ImportResponse,
  ListListsBody,
  ListListsResponse,
  MessageResponse,
} from './contactlist.schemas.js';
import type { ContactListService } from './contactlist.service.js';

const RECORD_EXAMPLE = { number: '+1 415 555 0134', name: 'Ada Lovelace', timezone: 'America/Los_Angeles', fields: { plan: 'gold', balance: 120 } };

/**
 * Contact lists (PRODUCT.md §13): `contactList/*`, and the vendor's V2.0
 * `AddContactApi/addContact` (also at `contactList/addContact`) and
 * `AddContactApi/deleteContact`. The CSV import is a raw route
 * (`contactlist.csv-route.ts`).
 */
export function contactListOperations({ contactLists }: { contactLists: ContactListService }) {
  return [
    defineOperation({
      module: 'contactList',
      name: 'create',
      writes: true,
      audit: { target: 'contactList', created: ({ result }) => (result as { data: { clId: number } }).data.clId },
      summary: 'Create a contact list for outbound campaigns',
      permission: 'campaign.manage',
      body: CreateListBody,
      response: ClIdResponse,
      errors: [1000, 1014, 1015, 1047],
      examples: { request: { name: 'Renewals November' }, response: { message: 'Contact list created', data: { clId: 1 } } },
      async handler({ principal, body }) {
        const clId = await contactLists.create(principal.accountId, body.name.trim());
        return { message: 'Contact list created', data: { clId } };
      },
    }),
    defineOperation({
      module: 'contactList',
      name: 'list',
      writes: false,
      summary: "The account's contact lists, with how many contacts each holds (soft-deleted ones not counted)",
      permission: 'campaign.view',
      body: ListListsBody,
      response: ListListsResponse,
      errors: [1014, 1015, 1047],
      examples: { request: {}, response: { data: [{ clId: 1, name: 'Renewals November', contacts: 1200, createdAt: 1768035600 }] } },
      async handler({ principal }) {
        return { data: await contactLists.list(principal.accountId) };
      },
    }),
    defineOperation({
      module: 'contactList',
      name: 'contacts',
      writes: false,
      summary: "A page of a list's contacts in list order, soft-deleted ones included (marked)",
      permission: 'campaign.view',
      body: ContactsBody,
      response: ContactsResponse,
      errors: [1000, 1012, 1014, 1015, 1047],
      errorNotes: { 1012: 'No such contact list' },
      examples: {
        request: { clId: 1, limit: 100 },
        response: {
          data: [
            {
              contact_id: 17,
              number: '14155550134',
              name: 'Ada Lovelace',
              timezone: 'America/Los_Angeles',
              fields: { plan: 'gold' },
              campaignSchedule: null,
              campaignReschedule: null,
              deleted: false,
            },
          ],
          nextCursor: null,
        },
      },
      async handler({ principal, body }) {
        const page = await contactLists.contacts(principal.accountId, toId(body.clId), body.cursor ?? 0, body.limit ?? 100);
        return { data: page.contacts, nextCursor: page.nextCursor };
      },
    }),
    defineOperation({
      module: 'contactList',
      name: 'delete',
      writes: true,
      audit: { target: 'contactList', id: ({ body }) => toId(body.clId) },
      summary: 'Delete a contact list and its contacts; refused while a campaign that is not stopped or completed uses it',
      permission: 'campaign.manage',
      body: DeleteListBody,
      response: MessageResponse,
      errors: [1000, 1012, 1014, 1015, 1047],
      errorNotes: { 1000: 'A campaign that is not stopped or completed uses the list (the message names it)', 1012: 'No such contact list' },
      examples: { request: { clId: 1 }, response: { message: 'Contact list deleted' } },
      async handler({ principal, body }) {
        await contactLists.delete(principal.accountId, toId(body.clId));
        return { message: 'Contact list deleted' };
      },
    }),
    defineOperation({
      module: 'AddContactApi',
      name: 'addContact',
      aliases: ['/api/v2/contactList/addContact'],
      writes: true,
      audit: {
        target: 'listContact',
        // The contact the number names before the change (none for a new one); the answer names it after.
        id: async ({ principal, body }) => {
          const number = contactDigits(body.record.number);
          return number === null ? null : contactLists.contactIdOf(principal.accountId, toId(body.clId), number);
        },
        created: ({ result }) => (result as { data: { contact_id: number } }).data.contact_id,
      },
      summary: "Add, update or soft-delete a contact of a list (the vendor's V2.0 AddContactApi; also at contactList/addContact)",
      description:
        '`action` 0 adds the record (a number already in the list is updated; a soft-deleted one stays deleted), 1 updates it ' +
        '(1012 when the number is not in the list), 2 soft-deletes it (kept, never dialled again; 1012 when absent). The number ' +
        'is normalised as the Directory does. `campaignSchedule`: not dialled before then; `campaignReschedule`: dialled again at ' +
        'that time, first in line once due. Only the fields given change on an update.',
      permission: 'campaign.manage',
      body: AddContactBody,
      response: ContactIdResponse,
      errors: [1000, 1001, 1005, 1012, 1014, 1015, 1047],
      errorNotes: { 1001: 'Unknown time zone, or a schedule time that is not Unix seconds', 1012: 'No such list, or (action 1, 2) the number is not in it' },
      examples: {
        request: { clId: 1, action: 0, record: RECORD_EXAMPLE, campaignSchedule: 1768035600 },
        response: { message: 'Contact saved', data: { contact_id: 17 } },
      },
      async handler({ principal, body }) {
        const contactId = await contactLists.addContact(principal.accountId, { ...body, clId: toId(body.clId), action: Number(body.action) });
        return { message: 'Contact saved', data: { contact_id: contactId } };
      },
    }),
    defineOperation({
      module: 'AddContactApi',
      name: 'deleteContact',
      aliases: ['/api/v2/contactList/deleteContact'],
      writes: true,
      audit: { target: 'listContact', id: ({ body }) => toId(body.delId) },
      summary: "Delete a contact of a list for good (the vendor's V2.0 AddContactApi; `delId` is addContact's contact_id)",
      permission: 'campaign.manage',
      body: DeleteContactBody,
      response: MessageResponse,
      errors: [1000, 1012, 1014, 1015, 1047],
      errorNotes: { 1012: 'No such list, or no contact `delId` in it' },
      examples: { request: { clId: 1, delId: 17 }, response: { message: 'Contact deleted' } },
      async handler({ principal, body }) {
        await contactLists.deleteContact(principal.accountId, toId(body.clId), toId(body.delId));
        return { message: 'Contact deleted' };
      },
    }),
    defineOperation({
      module: 'contactList',
      name: 'import',
      writes: true,
      audit: {
        target: 'contactList',
        id: ({ body }) => toId(body.clId),
        changes: ({ result }) => {
          const { added, updated } = (result as { data: { added: number; updated: number } }).data;
          return { added: [null, added], updated: [null, updated] };
        },
      },
      summary: 'Add or update up to 10,000 contacts of a list at once; a bad record is rejected alone',
      description:
        'Each record is written as `AddContactApi/addContact` action 0 would (a number already in the list, or earlier in the ' +
        'request, is updated). A record that fails its checks is listed in `rejected` with its index and the code it would have ' +
        'had on its own; the others are written. For larger files: `POST /api/v2/contactList/importCsv` (docs/campaigns.md).',
      permission: 'campaign.manage',
      body: ImportBody,
      response: ImportResponse,
      errors: [1000, 1012, 1014, 1015, 1047],
      errorNotes: { 1000: 'More than 10,000 records, or `records` not an array', 1012: 'No such contact list' },
      examples: {
        request: { clId: 1, records: [RECORD_EXAMPLE, { number: '12' }] },
        response: {
          data: { added: 1, updated: 0, rejected: [{ index: 1, code: 1005, message: 'Invalid contact number: record.number must have 6 to 15 digits' }] },
        },
      },
      async handler({ principal, body }) {
        return { data: await contactLists.importRecords(principal.accountId, toId(body.clId), body.records) };
      },
    }),
  ];
}
