import { Answer } from '../../http/answer.js';
import { defineOperation } from '../../http/operation.js';
import { toId } from '../../http/ids.js';
import type { CampaignFiguresService } from './campaign-figures.service.js';
import { CampaignReportBody, CampaignReportResponse } from './figures.schemas.js';

const HEADER = [
  'campaignId',
  'start',
  'end',
  'dialled',
  'humanAnswered',
  'machine',
  'noAnswer',
  'busy',
  'failed',
  'connected',
  'abandoned',
  'abandonRate',
  'contactRate',
  'avgConnectWait',
  'aht',
  'agentTalkShare',
];

/** report/campaign (PRODUCT.md §13 "Figures", §11's conventions; docs/campaigns.md). */
export function campaignFigureOperations({ campaignFigures }: { campaignFigures: CampaignFiguresService }) {
  return [
    defineOperation({
      module: 'report',
      name: 'campaign',
      writes: false,
      summary: 'Campaign report per campaign and interval: dials, answers, connects, abandons and the abandon rate, dispositions (docs/campaigns.md)',
      description:
        'PRODUCT.md §13. A dial belongs to the interval of its dial time, in the account time zone. Rows ordered by campaignId then start; ' +
        'empty intervals are present with zeros and null rates. With `format: "csv"` the rows as text/csv (RFC 4180), nested fields joined ' +
        'with `.` (`dispositions.sale`).',
      permission: 'analysis.view',
      body: CampaignReportBody,
      response: CampaignReportResponse,
      errors: [1000, 1001, 1002, 1010, 1012, 1014, 1015, 1047],
      examples: {
        request: { from: '11-02-2026', to: '11-02-2026', campaignId: 1, interval: 'total' },
        response: {
          data: [
            {
              campaignId: 1,
              start: 1793577600,
              end: 1793664000,
              dialled: 10,
              humanAnswered: 4,
              machine: 2,
              noAnswer: 3,
              busy: 1,
              failed: 0,
              connected: 3,
              abandoned: 1,
              abandonRate: 25,
              contactRate: 40,
              avgConnectWait: 1.33,
              aht: 140,
              dispositions: { sale: 1, not_interested: 2 },
              agentTalkShare: 58.33,
            },
          ],
        },
      },
      async handler({ principal, body }) {
        const { campaignId, ...rest } = body;
        const rows = await campaignFigures.report(principal.accountId, { ...rest, ...(campaignId !== undefined ? { campaignId: toId(campaignId) } : {}) });
        if (body.format === 'csv') return Answer.csv(HEADER, rows);
        return { data: rows };
      },
    }),
  ];
}
