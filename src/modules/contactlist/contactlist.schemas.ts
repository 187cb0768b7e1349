import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { IdSchema } from '../../http/ids.js';
import { MAX_FIELD_KEY, MAX_FIELD_VALUE, MAX_FIELDS, MAX_NAME } from './contact-record.js';
import { MAX_IMPORT_RECORDS } from './contactlist.service.js';

/** A list id: a malformed one names no list, hence 1012 like an unknown one. */
export const ClId = IdSchema({ code: 1012, description: 'Contact list id (number or string of digits)' });

const ListName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'List name (not blank)' });

/** A Unix time in seconds (number, or string of digits); 0 clears it. */
const UnixTime = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,12}$' })], { 'x-code': 1001, description });

/** One contact of a list on the wire (documents the shape; each record is checked by `parseRecord`, alone in an import). */
export const ContactRecordSchema = Type.Object(
  {
    number: Type.Union([Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0 })], {
      'x-code': 1005,
      description: 'Phone number, string or number; normalised as the Directory does (digits only, 6 to 15)',
    }),
    name: Type.Optional(Type.String({ maxLength: MAX_NAME })),
    timezone: Type.Optional(
      Type.String({ maxLength: 64, 'x-code': 1001, description: "IANA time zone of the contact (calling hours); '' or absent: the campaign's" }),
    ),
    fields: Type.Optional(
      Type.Record(
        Type.String({ maxLength: MAX_FIELD_KEY }),
        Type.Union([Type.String({ maxLength: MAX_FIELD_VALUE }), Type.Number(), Type.Boolean(), Type.Null()]),
        {
          maxProperties: MAX_FIELDS,
          description: `Any data of the contact (at most ${MAX_FIELDS} scalar fields); given, it replaces the stored fields`,
        },
      ),
    ),
  },
  { description: 'A contact of the list' },
);

export const CreateListBody = Type.Object({ name: ListName });
export const ListListsBody = Type.Object({});
export const DeleteListBody = Type.Object({ clId: ClId });
export const ContactsBody = Type.Object({
  clId: ClId,
  cursor: Type.Optional(Type.Integer({ minimum: 0, description: "The previous page's nextCursor; absent: from the start of the list" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Contacts per page, default 100' })),
});

export const AddContactBody = Type.Object({
  clId: ClId,
  action: Type.Union([Type.Integer({ minimum: 0, maximum: 2 }), Type.String({ pattern: '^[012]$' })], {
    description: '0 add (a number already in the list is updated), 1 update (1012 when absent), 2 soft-delete (kept, never dialled again)',
  }),
  record: ContactRecordSchema,
  campaignSchedule: Type.Optional(UnixTime('Unix seconds: the contact is not dialled before then (0 clears)')),
  campaignReschedule: Type.Optional(UnixTime('Unix seconds: a callback, dialled again at that time, first in line when due (0 clears)')),
});

export const DeleteContactBody = Type.Object({
  clId: ClId,
  delId: IdSchema({ code: 1012, description: 'The contact_id addContact answered' }),
});

export const ImportBody = Type.Object({
  clId: ClId,
  records: Type.Array(Type.Unknown({ description: 'A record {number, name?, timezone?, fields?}, checked alone: a bad one is rejected, the others written' }), {
    maxItems: MAX_IMPORT_RECORDS,
    description: `Up to ${MAX_IMPORT_RECORDS.toLocaleString('en-US')} records; a number already in the list (or earlier in the request) is updated`,
  }),
});

export const ClIdResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ clId: Type.Integer() }) });
export const MessageResponse = SuccessSchema({ message: Type.String() });
export const ListListsResponse = SuccessSchema({
  data: Type.Array(
    Type.Object({
      clId: Type.Integer(),
      name: Type.String(),
      contacts: Type.Integer({ description: 'Contacts that are not soft-deleted' }),
      createdAt: Type.Integer({ description: 'Unix seconds' }),
    }),
  ),
});
export const ContactsResponse = SuccessSchema({
  data: Type.Array(
    Type.Object({
      contact_id: Type.Integer(),
      number: Type.String({ description: 'Digits, normalised' }),
      name: Type.String(),
      timezone: Type.String({ description: "IANA zone, or '' (the campaign's applies)" }),
      fields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
      campaignSchedule: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds: not dialled before; null when unset' }),
      campaignReschedule: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds: the callback time; null when none' }),
      deleted: Type.Boolean({ description: 'Soft-deleted (addContact action 2): kept, never dialled again' }),
    }),
  ),
  nextCursor: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last' }),
});
export const ContactIdResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ contact_id: Type.Integer() }) });

export const Rejection = Type.Object({
  index: Type.Integer({ description: '0-based: the record in `records`, or the data row of a CSV (the header is not counted)' }),
  code: Type.Integer({ description: '1005 number, 1001 time zone, 1000 any other bad value' }),
  message: Type.String(),
});
export const ImportResponse = SuccessSchema({
  data: Type.Object({
    added: Type.Integer(),
    updated: Type.Integer(),
    rejected: Type.Array(Rejection),
  }),
});
