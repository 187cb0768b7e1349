import { Answer } from '../../http/answer.js';
import { abandonedRows } from './report.csv.js';
import { defineOperation } from '../../http/operation.js';
import { AbandonedBody, AbandonedResponse, AgentReportBody, AgentReportResponse, QueueReportBody, QueueReportResponse } from './report.schemas.js';
import type { ReportService } from './report.service.js';

const COMMON = [1000, 1001, 1002, 1010, 1014, 1015, 1047];
const CSV_NOTE = ' With `format: "csv"` the answer is the rows as text/csv (RFC 4180): a header of the field names, nested ones joined with `.`.';

const QUEUE_HEADER = ['groupId', 'start', 'end', 'offered', 'answered', 'abandoned', 'shortAbandoned'];
const AGENT_HEADER = ['agentId', 'start', 'end', 'loginTime', 'availableTime', 'talkTime', 'holdTime', 'wrapTime', 'breakTime'];
const ABANDONED_HEADER = ['callId', 'caller', 'groupId', 'did', 'queuedAt', 'waited', 'calledBack.callId', 'calledBack.at', 'calledBack.answered'];

export function reportOperations({ reports }: { reports: ReportService }) {
  return [
    defineOperation({
      module: 'report',
      name: 'queue',
      writes: false,
      summary: 'Queue report per group and interval: service level, abandonment, ASA, handle time (docs/reports.md)',
      description: 'PRODUCT.md §11. Rows ordered by groupId then start; empty intervals are present with zeros and null averages.' + CSV_NOTE,
      permission: 'analysis.view',
      body: QueueReportBody,
      response: QueueReportResponse,
      errors: [...COMMON, 1006],
      examples: {
        request: { from: '11-02-2026', to: '11-02-2026', groupId: 7, interval: 'total', slThresholds: [20, 30], shortAbandon: 5 },
        // The worked example of docs/reports.md.
        response: {
          data: [
            {
              groupId: 7,
              start: 1793577600,
              end: 1793664000,
              offered: 4,
              answered: 2,
              abandoned: 1,
              shortAbandoned: 1,
              answeredWithin: { '20': 1, '30': 2 },
              serviceLevel: { '20': 33.33, '30': 66.67 },
              abandonRate: 33.33,
              asa: 17.5,
              maxWait: 40,
              avgAbandonWait: 40,
              aht: 135,
              avgTalk: 100,
              avgHold: 10,
              avgWrap: 25,
              takenOver: 0,
              retries: 0,
            },
          ],
        },
      },
      async handler({ principal, body }) {
        if (body.format === 'csv') return Answer.csv(QUEUE_HEADER, await reports.queue(principal.accountId, body));
        const report = await reports.queueAnswer(principal.accountId, body);
        return report.encoded ? Answer.data(report.encoded) : { data: report.rows };
      },
    }),
    defineOperation({
      module: 'report',
      name: 'agent',
      writes: false,
      summary: 'Agent report per agent and interval: login, available, talk, hold, wrap-up and break time, hits, AHT, occupancy',
      description:
        'PRODUCT.md §11. Time is split exactly at interval edges; offered/answered/missed fall in the interval of the hit. ' +
        'groupId selects the agents mapped to that group.' +
        CSV_NOTE,
      permission: 'analysis.view',
      errorModule: 'agent',
      body: AgentReportBody,
      response: AgentReportResponse,
      errors: [...COMMON, 1006, 1509],
      examples: {
        request: { from: '11-02-2026', to: '11-02-2026', agentId: 101, interval: 'total' },
        response: {
          data: [
            {
              agentId: 101,
              start: 1793577600,
              end: 1793664000,
              loginTime: 3600,
              availableTime: 2400,
              talkTime: 600,
              holdTime: 60,
              wrapTime: 240,
              breakTime: 300,
              breaks: { lunch: 300 },
              offered: 5,
              answered: 4,
              missed: 1,
              aht: 225,
              occupancy: 27.27,
            },
          ],
        },
      },
      async handler({ principal, body }) {
        if (body.format === 'csv') return Answer.csv(AGENT_HEADER, await reports.agent(principal.accountId, body));
        const report = await reports.agentAnswer(principal.accountId, body);
        return report.encoded ? Answer.data(report.encoded) : { data: report.rows };
      },
    }),
    defineOperation({
      module: 'report',
      name: 'abandoned',
      writes: false,
      summary: 'The callback worklist: abandoned calls (not short), newest first, with the first later call of the same number',
      description:
        'PRODUCT.md §11. calledBack is the first later call with that number (either direction) queued within callbackWithinHours of the ' +
        'abandoned call’s end, else null. Paged by cursor / nextCursor.' +
        CSV_NOTE,
      permission: 'analysis.view',
      body: AbandonedBody,
      response: AbandonedResponse,
      errors: [...COMMON, 1006],
      examples: {
        request: { from: '11-02-2026', to: '11-02-2026', groupId: 7, limit: 50 },
        response: {
          data: [
            {
              callId: 'c-104',
              caller: '15550104',
              groupId: 7,
              did: '15551000',
              queuedAt: 1793613600,
              waited: 40,
              calledBack: { callId: 'c-105', at: 1793617200, answered: true },
            },
          ],
          nextCursor: null,
        },
      },
      async handler({ principal, body }) {
        if (body.format !== 'csv') return reports.abandoned(principal.accountId, body);
        // CSV is the whole range: every page, each read as the one before has been taken by the client.
        const first = await reports.abandoned(principal.accountId, { ...body, limit: 1000 });
        return Answer.csv(
          ABANDONED_HEADER,
          abandonedRows(first, (cursor) => reports.abandoned(principal.accountId, { ...body, cursor, limit: 1000 })),
        );
      },
    }),
  ];
}
