import { Type, type TSchema } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { LIST_LIMIT_MAX } from './callreport.service.js';

const Nullable = <T extends TSchema>(s: T, description?: string) => Type.Union([s, Type.Null()], description ? { description } : {});
const Time = (description: string) => Nullable(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' }), description);
const Secs = (description: string) => Type.Integer({ minimum: 0, description });

export const ReportLegSchema = Type.Object(
  {
    nodeId: Type.String({ description: '"#1", "#2"… in order' }),
    agentId: Type.Integer(),
    number: Nullable(Type.String(), "the agent's phone"),
    groupId: Nullable(Type.Integer()),
    status: Type.Union([Type.Literal('answered'), Type.Literal('missed')]),
    totalRingDuration: Secs('seconds the offer rang (0 for a takeover)'),
    talkDuration: Secs('seconds connected less hold'),
    totalHoldDuration: Secs('customer-hold seconds within this leg'),
    answerSTime: Time('null when missed'),
    answerETime: Time('null when missed'),
    recording: Nullable(Type.String(), "this leg's recording path"),
  },
  { additionalProperties: false },
);

export const PushReportSchema = Type.Object(
  {
    callId: Type.String(),
    callStatus: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
      description: '3 answered, 2 offered but never answered, 1 ended before any offer, 0 failed',
    }),
    cType: Type.Union([Type.Literal('IBD'), Type.Literal('OBD'), Type.Literal('CTC')]),
    DID: Nullable(Type.String()),
    campId: Type.Union([Type.Integer(), Type.String()], { description: '0 inbound, the campaign id otherwise' }),
    userId: Type.String({ description: 'the account id' }),
    cNumber: Type.String({ description: "the customer's number" }),
    ivrSTime: Type.String({ description: 'queued time, YYYY-MM-DD HH:MM:SS in the account zone' }),
    ivrETime: Type.String({ description: 'end time' }),
    firstAnswerTime: Time('null when never answered'),
    lastHangupTime: Time('null when never answered'),
    ivrDuration: Secs('ended - queued'),
    talkDuration: Secs('first answer to end, less hold'),
    totalHoldDuration: Secs('customer-hold seconds'),
    masterAgent: Nullable(Type.Integer(), 'agent of the first answer'),
    masterAgentNumber: Nullable(Type.String()),
    masterGroupId: Nullable(Type.Integer()),
    firstAttended: Nullable(Type.Literal('agent')),
    recordings: Type.Array(Type.Object({ nodeid: Nullable(Type.String()), file: Type.String(), time: Type.String() }, { additionalProperties: false })),
    nHDetail: Type.Array(ReportLegSchema),
    callDisposition: Type.String({
      description: 'the reason of call.ended, "" when none; a campaign call: its disposition code, else the outcome of a dial no agent took',
    }),
    retryOf: Nullable(Type.String(), "the previous attempt's callId"),
    contactListData: Type.Optional(
      Nullable(
        Type.Object(
          {
            clId: Type.Integer(),
            contact_id: Type.Integer(),
            number: Type.String(),
            name: Type.String(),
            timezone: Type.String(),
            fields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        "campaign calls only: the contact's record in its list (null once deleted)",
      ),
    ),
  },
  { additionalProperties: false },
);

const Filter = {
  from: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: 'queued at or after: Unix seconds or MM-DD-YYYY HH:mm:ss (account zone)' })),
  to: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: 'queued at or before' })),
  agentId: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'calls offered to (or taken over by) this agent' })),
  groupId: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  did: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  caller: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: "the customer's number (non-digits ignored)" })),
  callStatus: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: '0, 1, 2 or 3' })),
  cType: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: 'IBD, OBD, CTC: one, several comma-separated, or an array' })),
};

export const ListReportsBody = Type.Object({
  ...Filter,
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: `default 50, at most ${LIST_LIMIT_MAX}` })),
});
export const ListReportsResponse = SuccessSchema({ data: Type.Array(PushReportSchema), nextCursor: Nullable(Type.String(), 'null on the last page') });

export const DetailReportBody = Type.Object({
  clId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'the callId' })),
  callId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'accepted for clId' })),
  rType: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()], { description: '["rcrd"]: also answer rcrdAr' })),
});
export const DetailReportResponse = SuccessSchema({
  data: Type.Composite([
    PushReportSchema,
    Type.Object({
      rcrdAr: Type.Optional(
        Type.Array(
          Type.Object(
            {
              ndId: Nullable(Type.String(), "the leg's nodeId"),
              rcrd: Type.String({ description: '`<token>*<path segments joined by *>`: join the parts with `/` after `GET /api/v2/recording/directstream/`' }),
            },
            { additionalProperties: false },
          ),
        ),
      ),
    }),
  ]),
});
