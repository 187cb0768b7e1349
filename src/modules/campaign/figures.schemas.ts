import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { QueueReportBody } from '../report/report.schemas.js';
import { CampaignId } from './campaign.schemas.js';

const Num = Type.Union([Type.Number(), Type.Null()]);

export const CampaignReportBody = Type.Object({
  campaignId: Type.Optional(CampaignId),
  from: QueueReportBody.properties.from,
  to: QueueReportBody.properties.to,
  interval: QueueReportBody.properties.interval,
  format: QueueReportBody.properties.format,
});

export const CampaignReportRowSchema = Type.Object({
  campaignId: Type.Integer(),
  start: Type.Integer({ description: 'Unix seconds' }),
  end: Type.Integer({ description: 'Unix seconds, exclusive' }),
  dialled: Type.Integer({ description: 'Dials (calls placed) in the interval, by dial time' }),
  humanAnswered: Type.Integer({ description: 'Dials a person answered' }),
  machine: Type.Integer({ description: 'Dials a machine answered' }),
  noAnswer: Type.Integer(),
  busy: Type.Integer(),
  failed: Type.Integer(),
  connected: Type.Integer({ description: 'Dials a person (or a machine passed on) answered and an agent took' }),
  abandoned: Type.Integer({ description: 'A person answered and no agent was connected (within connectSecs)' }),
  abandonRate: Type.Union([Type.Number(), Type.Null()], { description: 'abandoned ÷ humanAnswered × 100 (machine answers in neither)' }),
  contactRate: Type.Union([Type.Number(), Type.Null()], { description: 'humanAnswered ÷ dialled × 100' }),
  avgConnectWait: Type.Union([Type.Number(), Type.Null()], { description: 'Mean seconds from the human answer to the agent answer' }),
  aht: Type.Union([Type.Number(), Type.Null()], {
    description: 'Mean handle seconds per connected call that ended: from both on the line to the end (talk + hold) plus the wrap-up of the call',
  }),
  dispositions: Type.Record(Type.String(), Type.Integer(), { description: '{code: count} of the dials of the interval' }),
  agentTalkShare: Num,
});

export const CampaignReportResponse = SuccessSchema({ data: Type.Array(CampaignReportRowSchema) });
