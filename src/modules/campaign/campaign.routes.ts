import { defineOperation } from '../../http/operation.js';
import { toId } from '../../http/ids.js';
import { settingsPatchOf } from './campaign-settings.js';
import {
  CallIdResponse,
  CampaignIdBody,
  DispositionBody,
  PreviewDialBody,
  PreviewResponse,
  StatusResponse,
  CampaignIdResponse,
  CreateCampaignBody,
  ListCampaignsBody,
  ListCampaignsResponse,
  MessageResponse,
  StateResponse,
  UpdateCampaignBody,
} from './campaign.schemas.js';
import type { CampaignService } from './campaign.service.js';
import type { CampaignCallsService } from './campaign-calls.service.js';

const EXAMPLE_CREATE = {
  name: 'Renewals November',
  clIds: [1],
  groupId: 55,
  did: '918040001234',
  mode: 'predictive' as const,
  maxAbandonRate: 3,
  callingHours: { start: '10:00', end: '19:00', weekDays: [1, 2, 3, 4, 5, 6] },
};

function transitionOperation(campaigns: CampaignService, op: 'start' | 'pause' | 'stop', summary: string) {
  return defineOperation({
    module: 'campaign',
    name: op,
    writes: true,
    audit: { target: 'campaign', id: ({ body }) => toId(body.campaignId) },
    summary,
    permission: 'campaign.manage',
    errorModule: 'agent',
    body: CampaignIdBody,
    response: StateResponse,
    errors: [1000, 1012, 1014, 1015, 1047, 1524],
    errorNotes: { 1524: 'the campaign is not in a state this operation leaves' },
    examples: {
      request: { campaignId: 1 },
      response: {
        message: `Campaign ${op === 'stop' ? 'stopped' : op === 'pause' ? 'paused' : 'running'}`,
        data: { state: op === 'stop' ? 'stopped' : op === 'pause' ? 'paused' : 'running' },
      },
    },
    async handler({ principal, body }) {
      const state = await campaigns.transition(principal.accountId, toId(body.campaignId), op);
      return { message: `Campaign ${state}`, data: { state } };
    },
  });
}

export function campaignOperations({ campaigns, campaignCalls }: { campaigns: CampaignService; campaignCalls: CampaignCallsService }) {
  return [
    defineOperation({
      module: 'campaign',
      name: 'create',
      writes: true,
      audit: { target: 'campaign', created: ({ result }) => (result as { data: { campaignId: number } }).data.campaignId },
      summary: 'Create an outbound campaign (a draft): its lists, group, caller DID, mode and settings (PRODUCT.md §13)',
      permission: 'campaign.manage',
      body: CreateCampaignBody,
      response: CampaignIdResponse,
      errors: [1000, 1001, 1006, 1012, 1014, 1015, 1047],
      errorNotes: { 1000: 'also: the DID is not one of the account’s (the message names `did`)', 1012: 'a contact list does not exist' },
      examples: { request: EXAMPLE_CREATE, response: { message: 'Campaign created', data: { campaignId: 1 } } },
      async handler({ principal, body }) {
        const campaignId = await campaigns.create(principal.accountId, {
          ...settingsPatchOf(body),
          name: body.name,
          clIds: body.clIds.map(toId),
          groupId: toId(body.groupId),
          did: body.did,
          mode: body.mode,
        });
        return { message: 'Campaign created', data: { campaignId } };
      },
    }),
    defineOperation({
      module: 'campaign',
      name: 'update',
      writes: true,
      audit: { target: 'campaign', id: ({ body }) => toId(body.campaignId) },
      summary: 'Change a campaign (fields given are merged; `mode` only while not running)',
      permission: 'campaign.manage',
      errorModule: 'agent',
      body: UpdateCampaignBody,
      response: MessageResponse,
      errors: [1000, 1001, 1006, 1012, 1014, 1015, 1047, 1524],
      errorNotes: { 1524: 'a change of mode while the campaign is running' },
      examples: { request: { campaignId: 1, maxAttempts: 5, retryDelays: { busy: 600 } }, response: { message: 'Campaign updated' } },
      async handler({ principal, body }) {
        await campaigns.update(principal.accountId, toId(body.campaignId), {
          ...settingsPatchOf(body),
          name: body.name,
          clIds: body.clIds?.map(toId),
          groupId: body.groupId === undefined ? undefined : toId(body.groupId),
          did: body.did,
          mode: body.mode,
        });
        return { message: 'Campaign updated' };
      },
    }),
    defineOperation({
      module: 'campaign',
      name: 'list',
      writes: false,
      summary: "The account's campaigns with their state and every setting",
      permission: 'campaign.view',
      body: ListCampaignsBody,
      response: ListCampaignsResponse,
      errors: [1014, 1015, 1047],
      examples: {
        request: {},
        response: {
          data: [
            {
              campaignId: 1,
              name: 'Renewals November',
              state: 'running',
              mode: 'predictive',
              clIds: [1],
              groupId: 55,
              did: '918040001234',
              dialRatio: 1,
              maxAbandonRate: 3,
              abandonWindow: '30d',
              connectSecs: 2,
              callingHours: { start: '10:00', end: '19:00', weekDays: [1, 2, 3, 4, 5, 6] },
              timezone: null,
              maxAttempts: 3,
              retryDelays: { noAnswer: 3600, busy: 900, failed: 3600, machine: 14400, abandoned: 259200 },
              ringSecs: 25,
              amd: false,
              machineAction: 'hangup',
              maxLines: 50,
              dispositions: [{ code: 'sale', final: true }],
              createdAt: 1768035600,
              startedAt: 1768039200,
            },
          ],
        },
      },
      async handler({ principal }) {
        return { data: await campaigns.list(principal.accountId) };
      },
    }),
    defineOperation({
      module: 'campaign',
      name: 'delete',
      writes: true,
      audit: { target: 'campaign', id: ({ body }) => toId(body.campaignId) },
      summary: 'Delete a draft, stopped or completed campaign (its past calls stay in the reports)',
      permission: 'campaign.manage',
      errorModule: 'agent',
      body: CampaignIdBody,
      response: MessageResponse,
      errors: [1000, 1012, 1014, 1015, 1047, 1524],
      errorNotes: { 1524: 'the campaign is running or paused' },
      examples: { request: { campaignId: 1 }, response: { message: 'Campaign deleted' } },
      async handler({ principal, body }) {
        await campaigns.remove(principal.accountId, toId(body.campaignId));
        return { message: 'Campaign deleted' };
      },
    }),
    transitionOperation(campaigns, 'start', 'Start (or resume) a campaign: draft or paused → running'),
    transitionOperation(campaigns, 'pause', 'Pause a running campaign: no new dials, calls in progress go on'),
    transitionOperation(campaigns, 'stop', 'Stop a campaign for good: no new dials, calls in progress go on'),
    defineOperation({
      module: 'campaign',
      name: 'status',
      writes: false,
      summary: 'A campaign now: state, dial level, lines, agents, contacts by state, the abandon rate over its window',
      permission: 'campaign.view',
      body: CampaignIdBody,
      response: StatusResponse,
      errors: [1000, 1012, 1014, 1015, 1047],
      examples: {
        request: { campaignId: 1 },
        response: {
          data: {
            state: 'running',
            mode: 'predictive',
            dialLevel: 2.5,
            lines: 10,
            agents: { available: 4, onCall: 14, wrapUp: 2 },
            contacts: { total: 5000, dialable: 3100, scheduled: 420, done: 1460, excluded: 20 },
            window: { humanAnswered: 812, abandoned: 17, abandonRate: 2.09 },
          },
        },
      },
      async handler({ principal, body }) {
        return { data: await campaignCalls.status(principal.accountId, toId(body.campaignId)) };
      },
    }),
    defineOperation({
      module: 'campaign',
      name: 'disposition',
      writes: true,
      audit: {
        target: 'campaign',
        id: ({ principal, body }) => campaignCalls.campaignOfCall(principal.accountId, body.callId),
        changes: ({ body }) => ({ disposition: [null, { callId: body.callId, disposition: body.disposition }] }),
      },
      summary: "Set a campaign call's disposition (the agent on the call, or campaign.manage): final, callback at callbackAt, dnc",
      description:
        'A final code makes the contact done; `callback` dials it again at `callbackAt` (first in line); `dnc` also lists the number permanently ' +
        'on DNC. An answered call without a disposition within 10 minutes of its end is `completed`.',
      principals: ['client', 'agent'],
      errorModule: 'agent',
      body: DispositionBody,
      response: MessageResponse,
      errors: [1000, 1012, 1014, 1015, 1047, 1524],
      errorNotes: {
        1000: 'also: a code the campaign does not define',
        1015: 'neither the agent on the call nor campaign.manage',
        1524: 'no agent answered the call',
      },
      examples: {
        request: { callId: 'obd-6f1c0e1e-8d1c-4c57-9a55-3f7d8c2b1a10', disposition: 'callback', callbackAt: 1768042800 },
        response: { message: 'Disposition set' },
      },
      async handler({ principal, body }) {
        await campaignCalls.disposition(principal, body);
        return { message: 'Disposition set' };
      },
    }),
    defineOperation({
      module: 'campaign',
      name: 'preview',
      writes: true,
      audit: {
        target: 'campaign',
        id: ({ body }) => toId(body.campaignId),
        changes: ({ result }) => ({ contactId: [null, (result as { data: { contactId?: number } | null }).data?.contactId ?? null] }),
      },
      summary: 'Preview mode: the next dialable contact, held for the calling agent 60 s (null: none now)',
      principals: ['agent'],
      errorModule: 'agent',
      body: CampaignIdBody,
      response: PreviewResponse,
      errors: [1000, 1012, 1014, 1015, 1047, 1509, 1524],
      errorNotes: { 1509: 'the agent is not in the campaign’s group', 1524: 'the campaign is not a running preview campaign' },
      examples: {
        request: { campaignId: 2 },
        response: {
          data: {
            contactId: 17,
            clId: 1,
            number: '919876500011',
            attempts: 0,
            reservedUntil: 1768039260,
            record: { number: '919876500011', name: 'Ravi K', timezone: 'Asia/Kolkata', fields: { plan: 'gold' } },
          },
        },
      },
      async handler({ principal, body }) {
        return { data: await campaignCalls.preview(principal, toId(body.campaignId)) };
      },
    }),
    defineOperation({
      module: 'campaign',
      name: 'previewDial',
      writes: true,
      audit: {
        target: 'campaign',
        id: ({ body }) => toId(body.campaignId),
        changes: ({ result }) => ({ callId: [null, (result as { data: { callId: string } }).data.callId] }),
      },
      summary: 'Preview mode: dial the contact held for the calling agent (the switch rings the agent first)',
      principals: ['agent'],
      errorModule: 'agent',
      body: PreviewDialBody,
      response: CallIdResponse,
      errors: [1000, 1012, 1014, 1015, 1047, 1501, 1509, 1524],
      errorNotes: { 1501: 'a call to the number is in progress', 1524: 'the contact is not held for the agent, or may not be dialled now' },
      examples: { request: { campaignId: 2, contactId: 17 }, response: { message: 'Dialling', data: { callId: 'obd-6f1c0e1e-8d1c-4c57-9a55-3f7d8c2b1a10' } } },
      async handler({ principal, body }) {
        const callId = await campaignCalls.previewDial(principal, toId(body.campaignId), toId(body.contactId));
        return { message: 'Dialling', data: { callId } };
      },
    }),
    defineOperation({
      module: 'campaign',
      name: 'previewSkip',
      writes: true,
      audit: { target: 'campaign', id: ({ body }) => toId(body.campaignId), changes: ({ body }) => ({ contactId: [toId(body.contactId), null] }) },
      summary: 'Preview mode: give the held contact back (dialable again)',
      principals: ['agent'],
      errorModule: 'agent',
      body: PreviewDialBody,
      response: MessageResponse,
      errors: [1000, 1012, 1014, 1015, 1047, 1509, 1524],
      examples: { request: { campaignId: 2, contactId: 17 }, response: { message: 'Skipped' } },
      async handler({ principal, body }) {
        await campaignCalls.previewSkip(principal, toId(body.campaignId), toId(body.contactId));
        return { message: 'Skipped' };
      },
    }),
  ];
}
