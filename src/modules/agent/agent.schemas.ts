import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { IdSchema } from '../../http/ids.js';

/** Agent/setCad and Agent/unsetCad take at most this many ids per request. */
export const MAX_CAD_IDS = 500;

const StrOrNum = (code: number, description: string, maxLength = 64) =>
  Type.Union([Type.String({ maxLength }), Type.Number()], { 'x-code': code, description });

export const GroupMappingSchema = Type.Record(Type.String(), Type.Object({ receive_call: Type.String({ description: 'Y or N' }) }), {
  'x-code': 1505,
  maxProperties: 500,
  description: 'Keys are group ids of the account (at most 500); each value is {receive_call: "Y"|"N"}',
});

const WorkingSchema = Type.Array(
  Type.Object({
    wDays: Type.Array(Type.String(), { description: 'Weekday codes MON TUE WED THU FRI SAT SUN' }),
    from: Type.Number({ description: 'Minutes after midnight (account time zone), 0-1439' }),
    to: Type.Number({ description: 'Minutes after midnight, from < to <= 1440' }),
  }),
  { 'x-code': 1511, maxItems: 50, description: 'Working-time rules' },
);

const AgentFieldSchemas = {
  name: Type.String({ maxLength: 200, 'x-code': 1515, description: 'Letters, digits, spaces, dots, apostrophes, hyphens' }),
  email: Type.String({ maxLength: 254, description: 'Login e-mail, unique across the service and not any client username (1512)' }),
  password: Type.String({ minLength: 8, maxLength: 200, description: 'At least 8 characters; stored only as a hash' }),
  phone: StrOrNum(1514, 'Phone number; 6 to 15 digits once non-digits are removed'),
  call_pass: StrOrNum(1519, 'Exactly eight digits'),
  dest_type: Type.String({ 'x-code': 1513, maxLength: 16, description: 'MOBILE or SIP' }),
  dest_value: StrOrNum(1510, 'MOBILE: phone number; SIP: [sip:]user[@host[:port]]', 200),
  role: IdSchema({ code: 1503, description: 'Role id' }),
  address: Type.String({ maxLength: 500 }),
  parent: Type.Union([IdSchema(), Type.Literal(''), Type.Literal(0), Type.Null()], {
    'x-code': 1504,
    description: 'Parent agent id; omitted, "", 0 or null: a root agent (for a can_see 0 caller: the caller)',
  }),
  group: GroupMappingSchema,
  working: WorkingSchema,
  status: Type.Union([Type.Literal(0), Type.Literal(1)], { 'x-code': 1508, description: '1 active, 0 inactive (cannot log in)' }),
  allowDid: Type.Union([Type.String({ maxLength: 2000 }), Type.Array(Type.Union([Type.String({ maxLength: 64 }), Type.Number()]), { maxItems: 200 })], {
    'x-code': 1516,
    description: "The account's DIDs, as an array or a comma-separated string",
  }),
  favorite: Type.String({ 'x-code': 1528, maxLength: 5000, description: 'Free text, at most 1000 characters' }),
};

const F = AgentFieldSchemas;
const AgentId = IdSchema({ code: 1509, description: 'Agent id' });

export const CreateAgentBody = Type.Object({
  name: F.name,
  email: F.email,
  password: F.password,
  phone: F.phone,
  call_pass: F.call_pass,
  dest_type: F.dest_type,
  dest_value: F.dest_value,
  role: F.role,
  address: Type.Optional(F.address),
  parent: Type.Optional(F.parent),
  group: Type.Optional(F.group),
  working: Type.Optional(F.working),
  status: Type.Optional(F.status),
  allowDid: Type.Optional(F.allowDid),
  favorite: Type.Optional(F.favorite),
});

export const UpdateAgentBody = Type.Object({ agentId: AgentId, ...Type.Partial(CreateAgentBody).properties });

export const DeleteAgentBody = Type.Object({ agentId: AgentId });

export const ListAgentsBody = Type.Object({
  agentId: Type.Optional(Type.Union([IdSchema(), Type.Literal('')], { description: 'One agent; omitted: all visible agents' })),
  name: Type.Optional(Type.String({ maxLength: 200, description: 'Name contains (case-insensitive)' })),
  groupid: Type.Optional(
    Type.Union([IdSchema({ code: 1006 }), Type.Literal('')], { 'x-code': 1006, description: 'Only agents mapped to this group; unknown: 1006' }),
  ),
  quick: Type.Optional(Type.Boolean({ description: 'Minimal records: unique_id, nm, email, phone, dest_type, dest_value, group, status' })),
});

export const CadBody = Type.Object({
  agentIds: Type.Array(Type.Union([Type.String({ maxLength: 32 }), Type.Number()]), {
    maxItems: MAX_CAD_IDS,
    description: `Agent ids (at most ${MAX_CAD_IDS}); a single value instead of an array is 1000`,
  }),
});

export const GroupMappingBody = Type.Object({ agentId: AgentId, group: GroupMappingSchema });

const GroupNames = Type.Array(Type.Record(Type.String(), Type.String()), { description: 'One object per group: `{"55": "Support"}` (group id → group name)' });

export const AgentRecordSchema = Type.Object({
  name: Type.String(),
  favorite: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  address: Type.String(),
  dest_type: Type.String(),
  dest_value: Type.String(),
  call_pass: Type.String({ description: 'Eight digits for callers holding agent.manage (clients hold it); "" for everyone else' }),
  password: Type.Literal('', { description: 'Always empty: passwords are never returned' }),
  role: Type.String(),
  roleName: Type.String(),
  parent: Type.String({ description: 'Parent path, e.g. ",START,7,12,"' }),
  create_date: Type.Integer(),
  create_by: Type.String(),
  create_by_type: Type.String(),
  user_id: Type.String(),
  unique_id: Type.Integer(),
  allowDid: Type.String(),
  status: Type.Integer(),
  isDeleted: Type.Integer(),
  preDeleted: Type.Integer(),
  cad: Type.Integer({ description: '1 when CAD is set (Agent/setCad)' }),
  group: Type.Array(Type.Integer()),
  groupNames: GroupNames,
  groupMapping: Type.Record(Type.String(), Type.Object({ receive_call: Type.String() }), { description: 'receive_call per group id' }),
  working: Type.Array(Type.Object({ wDays: Type.Array(Type.String()), from: Type.Integer(), to: Type.Integer(), agentId: Type.Integer() })),
});

export const QuickAgentSchema = Type.Object({
  unique_id: Type.Integer(),
  nm: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  dest_type: Type.String(),
  dest_value: Type.String(),
  group: Type.Array(Type.Integer()),
  status: Type.Integer(),
});

export const AgentIdResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ agentId: Type.Integer() }) });
export const MessageResponse = SuccessSchema({ message: Type.String() });
export const ListAgentsResponse = SuccessSchema({ response: Type.Array(Type.Union([AgentRecordSchema, QuickAgentSchema])) });
const CadError = Type.Object({ agentId: Type.String(), message: Type.String() });
export const SetCadResponse = SuccessSchema({
  message: Type.String(),
  data: Type.Object({ updatedAgents: Type.Array(Type.Object({ agentId: Type.String(), status: Type.String() })), errors: Type.Array(CadError) }),
});
export const UnsetCadResponse = SuccessSchema({
  message: Type.String(),
  data: Type.Object({ unsetCadAgents: Type.Array(Type.String()), errors: Type.Array(CadError) }),
});
