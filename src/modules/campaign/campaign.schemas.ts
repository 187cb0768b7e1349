import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { IdSchema } from '../../http/ids.js';

/** A campaign id: a malformed one names no campaign, hence 1012. */
export const CampaignId = IdSchema({ code: 1012, description: 'Campaign id (the `campId` of reports)' });
const ClIds = Type.Array(IdSchema({ code: 1012, description: 'Contact list id' }), {
  minItems: 1,
  maxItems: 100,
  description: 'Contact lists dialled, in order',
});
const Mode = Type.Union([Type.Literal('preview'), Type.Literal('progressive'), Type.Literal('predictive')], {
  description:
    'preview: an agent asks for the next contact; progressive: an agent is reserved, then the customer dialled; predictive: dialled ahead of free agents',
});
const Seconds = (description: string) => Type.Integer({ minimum: 0, maximum: 31_536_000, description });
const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM' });

/** The settings of §13; every one optional (defaults on create, unchanged on update). */
const Settings = {
  dialRatio: Type.Optional(Type.Number({ minimum: 1, maximum: 3, description: 'Progressive: calls per available agent, 1–3 (default 1)' })),
  maxAbandonRate: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Percent of human answers abandoned over the window (default 3)' })),
  abandonWindow: Type.Optional(Type.Union([Type.Literal('30d'), Type.Literal('24h')], { description: 'Rolling window of the abandon rate (default 30d)' })),
  connectSecs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60, description: 'A person not connected to an agent within this is abandoned (default 2)' })),
  callingHours: Type.Optional(
    Type.Object(
      {
        start: Type.Optional(HHMM),
        end: Type.Optional(HHMM),
        weekDays: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), { minItems: 1, maxItems: 7, description: '1 = Monday … 7 = Sunday' })),
      },
      {
        additionalProperties: false,
        description: 'Local time of the contact (its timezone, else the campaign’s, else the account’s); default 09:00–21:00 every day',
      },
    ),
  ),
  timezone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: "IANA zone; null: the account's" })),
  maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Dials per contact at most (default 3)' })),
  retryDelays: Type.Optional(
    Type.Object(
      {
        noAnswer: Type.Optional(Seconds('default 3600')),
        busy: Type.Optional(Seconds('default 900')),
        failed: Type.Optional(Seconds('default 3600')),
        machine: Type.Optional(Seconds('default 14400')),
        abandoned: Type.Optional(Seconds('default 259200')),
      },
      { additionalProperties: false, description: 'Seconds before the next attempt, by outcome' },
    ),
  ),
  ringSecs: Type.Optional(Type.Integer({ minimum: 15, maximum: 120, description: 'Ring the customer this long (default 25, at least 15)' })),
  amd: Type.Optional(Type.Boolean({ description: 'Ask the switch for answering-machine detection (default false)' })),
  machineAction: Type.Optional(
    Type.Union([Type.Literal('hangup'), Type.Literal('agent')], { description: 'A machine answer: hang up (default) or pass to an agent' }),
  ),
  maxLines: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Calls in progress at most (default 50)' })),
  dispositions: Type.Optional(
    Type.Array(
      Type.Object(
        { code: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,40}$' }), final: Type.Boolean({ description: 'true: the contact is done' }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50, description: 'Codes an agent may set after a call' },
    ),
  ),
};

export const CreateCampaignBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  clIds: ClIds,
  groupId: IdSchema({ code: 1006, description: 'The group whose agents take the calls' }),
  did: Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Integer({ minimum: 1 })], {
    description: "The caller id shown: one of the account's DIDs",
  }),
  mode: Mode,
  ...Settings,
});
export const UpdateCampaignBody = Type.Object({
  campaignId: CampaignId,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })),
  clIds: Type.Optional(ClIds),
  groupId: Type.Optional(IdSchema({ code: 1006 })),
  did: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Integer({ minimum: 1 })])),
  mode: Type.Optional(Mode),
  ...Settings,
});
export const CampaignIdBody = Type.Object({ campaignId: CampaignId });
export const ListCampaignsBody = Type.Object({});

const StateSchema = Type.Union(['draft', 'running', 'paused', 'stopped', 'completed'].map((s) => Type.Literal(s)));
const CampaignView = Type.Object({
  campaignId: Type.Integer(),
  name: Type.String(),
  state: StateSchema,
  mode: Mode,
  clIds: Type.Array(Type.Integer()),
  groupId: Type.Integer(),
  did: Type.String(),
  dialRatio: Type.Number(),
  maxAbandonRate: Type.Number(),
  abandonWindow: Type.String(),
  connectSecs: Type.Integer(),
  callingHours: Type.Object({ start: Type.String(), end: Type.String(), weekDays: Type.Array(Type.Integer()) }),
  timezone: Type.Union([Type.String(), Type.Null()]),
  maxAttempts: Type.Integer(),
  retryDelays: Type.Object({ noAnswer: Type.Integer(), busy: Type.Integer(), failed: Type.Integer(), machine: Type.Integer(), abandoned: Type.Integer() }),
  ringSecs: Type.Integer(),
  amd: Type.Boolean(),
  machineAction: Type.String(),
  maxLines: Type.Integer(),
  dispositions: Type.Array(Type.Object({ code: Type.String(), final: Type.Boolean() })),
  createdAt: Type.Integer({ description: 'Unix seconds' }),
  startedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'First start, Unix seconds' }),
});

export const CampaignIdResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ campaignId: Type.Integer() }) });
export const MessageResponse = SuccessSchema({ message: Type.String() });
export const StateResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ state: StateSchema }) });
export const ListCampaignsResponse = SuccessSchema({ data: Type.Array(CampaignView) });

export const StatusResponse = SuccessSchema({
  data: Type.Object({
    state: StateSchema,
    mode: Mode,
    dialLevel: Type.Number({ description: 'Calls dialled per available agent now' }),
    lines: Type.Integer({ description: 'Calls in progress' }),
    agents: Type.Object({ available: Type.Integer(), onCall: Type.Integer(), wrapUp: Type.Integer() }),
    contacts: Type.Object({ total: Type.Integer(), dialable: Type.Integer(), scheduled: Type.Integer(), done: Type.Integer(), excluded: Type.Integer() }),
    window: Type.Object({ humanAnswered: Type.Integer(), abandoned: Type.Integer(), abandonRate: Type.Number() }),
  }),
});

export const DispositionBody = Type.Object({
  callId: Type.String({ minLength: 1, maxLength: 128 }),
  disposition: Type.String({ minLength: 1, maxLength: 40 }),
  callbackAt: Type.Optional(Type.Integer({ minimum: 1, description: 'Unix seconds: when the callback is due (disposition callback)' })),
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const PreviewResponse = SuccessSchema({
  data: Type.Union([
    Type.Object({
      contactId: Type.Integer(),
      clId: Type.Integer(),
      number: Type.String(),
      attempts: Type.Integer(),
      reservedUntil: Type.Integer({ description: 'Unix seconds' }),
      record: Type.Object({
        number: Type.String(),
        name: Type.String(),
        timezone: Type.String({ description: "IANA zone, or '' (the campaign's applies)" }),
        fields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]), {
          description: 'The record’s other columns',
        }),
      }),
    }),
    Type.Null(),
  ]),
});
export const PreviewDialBody = Type.Object({ campaignId: CampaignId, contactId: IdSchema({ code: 1012 }) });
export const CallIdResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ callId: Type.String() }) });
