import { normaliseContact } from '../../http/contact.js';
import { fail } from '../../errors/catalogue.js';
import { defineOperation } from '../../http/operation.js';
import { SEARCH_DEFAULT_LIMIT } from './contact.service.js';
import { infoJson, parseProject } from './contact-views.js';
import { Answer } from '../../http/answer.js';
import {
  ContactWrittenResponse,
  DeleteContactBody,
  GetFieldsBody,
  GetFieldsResponse,
  GetInfoBody,
  GetInfoResponse,
  SearchBody,
  SearchResponse,
  WriteContactBody,
} from './directory.schemas.js';
import { listOperations } from './lists.routes.js';
import { stickyOperations } from './sticky.routes.js';
import type { ContactService } from './contact.service.js';

const CONTACT_ERRORS = [1000, 1005, 1014, 1015, 1047];

/** A search prefix: the digits of the value, 1 to 15 of them (else 1005). */
function searchPrefix(value: string | number): string {
  const digits = typeof value === 'number' ? (Number.isSafeInteger(value) && value >= 0 ? String(value) : '') : value.replace(/\D/g, '');
  if (digits.length < 1 || digits.length > 15) throw fail(1005, 'contact must be a prefix of 1 to 15 digits');
  return digits;
}

/** Directory/* operations: contacts here; sticky agents, DNC and blacklist in their own files. */
export function directoryOperations(services: { contacts: ContactService } & Parameters<typeof listOperations>[0] & Parameters<typeof stickyOperations>[0]) {
  const { contacts } = services;
  return [
    defineOperation({
      module: 'Directory',
      name: 'create',
      writes: true,
      audit: { target: 'contact', created: ({ result }) => (result as { data: { contact: string } }).data.contact },
      summary: 'Add a contact to the directory',
      permission: 'directory.manage',
      errorModule: 'directory',
      body: WriteContactBody,
      response: ContactWrittenResponse,
      errors: [...CONTACT_ERRORS, 1504],
      errorNotes: { 1504: 'the number is already in the directory' },
      examples: {
        request: {
          contact: '+91 98111 00042',
          contactinfo: { name: 'Ravi Kumar', email: 'ravi@example.com', company: 'Kumar Traders', custom_plan: 'gold' },
          other: { vip: true, source: 3 },
        },
        response: { message: 'Contact created', data: { contact: '919811100042' } },
      },
      async handler({ principal, body }) {
        const contact = normaliseContact(body.contact);
        await contacts.create(principal.accountId, contact, body.contactinfo, body.other);
        return { message: 'Contact created', data: { contact } };
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'update',
      writes: true,
      audit: { target: 'contact', id: ({ body }) => normaliseContact(body.contact) },
      summary: 'Change a contact (merge: only supplied fields change)',
      permission: 'directory.manage',
      errorModule: 'directory',
      body: WriteContactBody,
      response: ContactWrittenResponse,
      errors: [...CONTACT_ERRORS, 1012],
      errorNotes: { 1012: 'the number is not in the directory' },
      examples: {
        request: { contact: '919811100042', contactinfo: { designation: 'Owner' } },
        response: { message: 'Contact updated', data: { contact: '919811100042' } },
      },
      async handler({ principal, body }) {
        const contact = normaliseContact(body.contact);
        await contacts.update(principal.accountId, contact, body.contactinfo, body.other);
        return { message: 'Contact updated', data: { contact } };
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'delete',
      writes: true,
      audit: { target: 'contact', id: ({ body }) => normaliseContact(body.contact) },
      summary: 'Remove a contact from the directory (its DNC, sticky and blacklist entries stay; privacy/erase removes all)',
      permission: 'directory.manage',
      errorModule: 'directory',
      body: DeleteContactBody,
      response: ContactWrittenResponse,
      errors: [...CONTACT_ERRORS, 1012],
      errorNotes: { 1012: 'the number is not in the directory' },
      examples: {
        request: { contact: '919811100042' },
        response: { message: 'Contact deleted', data: { contact: '919811100042' } },
      },
      async handler({ principal, body }) {
        const contact = normaliseContact(body.contact);
        await contacts.remove(principal.accountId, contact);
        return { message: 'Contact deleted', data: { contact } };
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'getInfo',
      writes: false,
      summary: 'A contact: Cu (fields), and Ot (metadata) with field "all"',
      permission: 'directory.view',
      errorModule: 'directory',
      body: GetInfoBody,
      response: GetInfoResponse,
      errors: [...CONTACT_ERRORS, 1012],
      errorNotes: { 1012: 'the number is not in the directory' },
      examples: {
        request: { cn: '919811100042', field: 'all' },
        response: {
          Cu: { mobile: 919811100042, Name: 'Ravi Kumar', Email: 'ravi@example.com', Company: 'Kumar Traders', Designation: 'Owner', custom_plan: 'gold' },
          Ot: { uid: '2', create_time: 1768035600, update_time: 1768035900, sc: 3, vip: true },
        },
      },
      async handler({ principal, body }) {
        const contact = normaliseContact(body.cn, 'cn');
        const withMeta = body.field?.trim().toLowerCase() === 'all';
        // Written as JSON text without an answer object (a hot lookup: contact-views.ts infoJson).
        return Answer.envelopeText(infoJson(await contacts.info(principal.accountId, contact, withMeta), principal.accountId, withMeta));
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'getFields',
      writes: false,
      summary: 'Chosen fields of a contact (null where unset)',
      permission: 'directory.view',
      errorModule: 'directory',
      body: GetFieldsBody,
      response: GetFieldsResponse,
      errors: [...CONTACT_ERRORS, 1012],
      errorNotes: { 1012: 'the number is not in the directory' },
      examples: {
        request: { contact: '919811100042', project: 'name,email,dob,custom_plan' },
        response: { data: { name: 'Ravi Kumar', email: 'ravi@example.com', dob: null, custom_plan: 'gold' } },
      },
      async handler({ principal, body }) {
        const contact = normaliseContact(body.contact);
        return { data: await contacts.fields(principal.accountId, contact, parseProject(body.project)) };
      },
    }),
    defineOperation({
      module: 'Directory',
      name: 'search',
      writes: false,
      summary: 'Contacts whose number starts with a digit prefix',
      permission: 'directory.view',
      errorModule: 'directory',
      body: SearchBody,
      response: SearchResponse,
      errors: [...CONTACT_ERRORS, 1012],
      errorNotes: { 1012: 'no number in the directory starts with the prefix' },
      examples: {
        request: { contact: '91981', project: 'name,company', limit: 10 },
        response: { data: [{ contact: '919811100042', name: 'Ravi Kumar', company: 'Kumar Traders' }] },
      },
      async handler({ principal, body }) {
        const prefix = searchPrefix(body.contact);
        const names = parseProject(body.project);
        return { data: await contacts.search(principal.accountId, prefix, names, body.limit ?? SEARCH_DEFAULT_LIMIT) };
      },
    }),
    ...stickyOperations(services),
    ...listOperations(services),
  ];
}
