import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { CUSTOM_FIELD_TYPES } from './account.service.js';

export const Username = Type.String({ minLength: 3, maxLength: 100, pattern: '^\\S+$', description: 'Login name (no whitespace)' });
export const Password = Type.String({ minLength: 8, maxLength: 200 });

export const CreateAccountBody = Type.Object({
  username: Username,
  password: Password,
  name: Type.Optional(Type.String({ maxLength: 200 })),
  timezone: Type.Optional(Type.String({ maxLength: 64, description: 'IANA time zone, default UTC' })),
});
export const CreateAccountResponse = SuccessSchema({ data: Type.Object({ userId: Type.String() }) });

const CustomField = Type.Object(
  {
    key: Type.String({
      pattern: '^custom_[A-Za-z0-9_]{1,60}$',
      description: '`custom_` followed by the name (letters, digits, underscore; at most 60), e.g. `custom_plan`',
    }),
    type: Type.Union(CUSTOM_FIELD_TYPES.map((t) => Type.Literal(t))),
    required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Days = Type.Union([Type.Integer({ minimum: 1, maximum: 100000 }), Type.Null()], { description: 'Days to keep; null keeps forever' });
const RetentionShape = {
  callDays: Days,
  recordingDays: Days,
  auditDays: Days,
};

const SettingsShape = {
  timezone: Type.String({ description: 'IANA time zone name; "today" and analysis buckets use it' }),
  // Bounded as every id is (http/ids.ts): 1e308 is an integer to JSON Schema, and PostgreSQL's bigint refuses it.
  defaultGroupId: Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
    description: 'Agent/live group when none is given; null = all agents',
  }),
  ghostThresholdSecs: Type.Integer({ minimum: 0, maximum: 3600, description: 'Answered calls with talk time up to this count as ghost calls' }),
  customFields: Type.Array(CustomField, { maxItems: 50 }),
  retention: Type.Object(RetentionShape, {
    description: 'How long call rows and hits (callDays), recordings (recordingDays) and audit records (auditDays) are kept; an hourly job removes older ones',
  }),
  breakReasons: Type.Array(Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9 _.-]+$' }), {
    minItems: 1,
    maxItems: 20,
    description: 'The reasons an agent may give for a break (Agent/setState); default break, lunch, training, meeting',
  }),
};

export const GetSettingsBody = Type.Object({});
export const UpdateSettingsBody = Type.Object({
  timezone: Type.Optional(Type.String({ maxLength: 64 })),
  defaultGroupId: Type.Optional(Type.Union([SettingsShape.defaultGroupId.anyOf[0]!, Type.Null()])),
  ghostThresholdSecs: Type.Optional(SettingsShape.ghostThresholdSecs),
  customFields: Type.Optional(SettingsShape.customFields),
  breakReasons: Type.Optional(SettingsShape.breakReasons),
  retention: Type.Optional(
    Type.Object(
      { callDays: Type.Optional(Days), recordingDays: Type.Optional(Days), auditDays: Type.Optional(Days) },
      { additionalProperties: false, description: 'Merged field by field: only the fields given change' },
    ),
  ),
});
export const SettingsResponse = SuccessSchema({ data: Type.Object(SettingsShape) });
