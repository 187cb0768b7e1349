import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';

/*
 * Request and response schemas of the Directory module. Field rules that
 * depend on the account (custom fields) or on the value's meaning (dates,
 * expiry) are checked by the services; the schemas fix shapes and codes.
 */

/** A contact number: string or number; normalised by the service (6–15 digits, else 1005). */
export const Contact = Type.Union([Type.String({ maxLength: 64 }), Type.Number()], {
  'x-code': 1005,
  description: 'Contact number, string or number; every non-digit is removed and 6 to 15 digits must remain',
});

const AnyObject = Type.Unknown({ description: 'Object of fields (see docs/api/directory.md)' });

/** An id as number or string of digits; `code` for a malformed one. */
const Id = (code: number, description: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^\\s*[0-9]{1,15}\\s*$' })], {
    'x-code': code,
    description,
  });

/** A string or a number; `code` when it is neither. */
const Scalar = (code: number, description?: string) =>
  Type.Union([Type.String({ maxLength: 64 }), Type.Number()], { 'x-code': code, ...(description ? { description } : {}) });
const Message = Type.String();

export const WriteContactBody = Type.Object({
  contact: Contact,
  contactinfo: Type.Optional(AnyObject),
  other: Type.Optional(AnyObject),
});
export const ContactWrittenResponse = SuccessSchema({ message: Message, data: Type.Object({ contact: Type.String() }) });

export const DeleteContactBody = Type.Object({ contact: Contact });

export const GetInfoBody = Type.Object({
  cn: Contact,
  field: Type.Optional(Type.String({ maxLength: 20, description: '"all" adds the metadata object Ot' })),
});
const FieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export const GetInfoResponse = SuccessSchema({
  Cu: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
    description: 'Contact fields: mobile, Name, Email, Address, Company, Designation, DOB, custom_*',
  }),
  Ot: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
      description: 'uid, create_time, update_time, sc, tC, lcT, vip, blacklist',
    }),
  ),
});

const Project = Type.Union([Type.String({ maxLength: 2000 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })], {
  description: 'Comma-separated create-field names, or "all"',
});

export const GetFieldsBody = Type.Object({ contact: Contact, project: Project });
export const GetFieldsResponse = SuccessSchema({ data: Type.Record(Type.String(), FieldValue) });

export const SearchBody = Type.Object({
  contact: Type.Union([Type.String({ maxLength: 64 }), Type.Number()], { 'x-code': 1005, description: 'Digit prefix of the numbers to find' }),
  project: Project,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 20, description: 'At most this many contacts (default 20, max 500)' })),
});
export const SearchResponse = SuccessSchema({ data: Type.Array(Type.Record(Type.String(), FieldValue)) });

export const SetStickyBody = Type.Object({
  contact: Contact,
  agentId: Id(1501, 'Sticky agent (existing, active)'),
  type: Type.Union([Type.String({ maxLength: 20 }), Type.Number()], { 'x-code': 1502, description: 'all (or *), cli, cli_group' }),
  expiry: Type.Union([Type.Number(), Type.String({ maxLength: 20 })], {
    'x-code': 1509,
    description: 'Unix seconds (over 10^11, i.e. milliseconds: 1001), -1 for no expiry; 0 or a past time is stored but never applies',
  }),
  cli: Type.Optional(Scalar(1505, 'One of the account DIDs; required for cli and cli_group')),
  groupid: Type.Optional(Scalar(1506, 'Group id; required for cli_group')),
});

export const GetStickyBody = Type.Object({
  contact: Contact,
  type: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Number()], { 'x-code': 1502 })),
  agentId: Type.Optional(Id(1000, 'Only this agent')),
  groupid: Type.Optional(Scalar(1506)),
  cli: Type.Optional(Scalar(1505)),
  expiry: Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 20 })], { 'x-code': 1509, description: 'Only settings with exactly this expiry' })),
});
export const StickyList = Type.Array(
  Type.Object({
    agent: Type.Integer(),
    expiry: Type.Integer({ description: 'Unix seconds, -1 = no expiry' }),
    type: Type.Union([Type.Literal('*'), Type.Literal('cli'), Type.Literal('cli_group')]),
    cli: Type.Optional(Type.String()),
    groupid: Type.Optional(Type.Integer()),
  }),
);
export const GetStickyResponse = SuccessSchema({ data: StickyList });

export const RemoveStickyBody = Type.Object({
  contact: Contact,
  type: Type.Union([Type.String({ maxLength: 20 }), Type.Number()], { 'x-code': 1502 }),
  agentId: Type.Optional(Id(1000, "Only this agent's setting")),
  groupid: Type.Optional(Scalar(1506)),
  cli: Type.Optional(Scalar(1505)),
});
export const RemoveStickyResponse = SuccessSchema({ message: Message, data: Type.Object({ removed: Type.Integer() }) });

export const MessageResponse = SuccessSchema({ message: Message });

export const GetDncBody = Type.Object({ contact: Contact });
export const GetDncResponse = SuccessSchema({ data: Type.Object({ dnc: Type.Integer({ description: '0, -1 or Unix seconds' }) }) });
export const SetDncBody = Type.Object({
  contact: Contact,
  // Any value reaches the service, which answers 1001 with a "valid date" message for a wrong one.
  dnc: Type.Unknown({ description: 'Number: 0 removes, -1 permanent, or a future Unix timestamp (seconds)' }),
});

export const BlacklistBody = Type.Object({
  contact: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Number(), Type.Null()], { 'x-code': 1005 })),
  DID: Type.Optional(Type.Unknown({ description: 'Array of account DIDs; [] removes the contact from the blacklist' })),
  RESET: Type.Optional(Type.Unknown({ description: '1 / true with a blank contact clears the whole blacklist' })),
});
export const BlacklistResponse = SuccessSchema({
  message: Message,
  data: Type.Union([Type.Object({ contact: Type.String(), DID: Type.Array(Type.String()) }), Type.Object({ cleared: Type.Integer() })]),
});
