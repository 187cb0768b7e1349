import { Answer } from '../../http/answer.js';
import { defineOperation } from '../../http/operation.js';
import { HitsBody, HitsResponse } from './analysis.schemas.js';
import type { AnalysisService } from './analysis.service.js';

export function analysisOperations({ analysis }: { analysis: AnalysisService }) {
  return [
    defineOperation({
      module: 'analysis',
      name: 'hits',
      writes: false,
      aliases: ['/api/v2/analysis/call'],
      summary: 'Hit and call counters per agent, group, DID or campaign (docs/metrics.md)',
      description:
        'Filters: date (range), agentId, groupId, did, campaignId, direction (eq, ne, in). breakDown agentId | groupId | did | campaignId; ' +
        'disPlay date | hour | month | total (account time zone); multi true nests key → bucket → counters. 1586: no matching calls. ' +
        'Also served as POST /api/v2/analysis/call (the same operation).',
      permission: 'analysis.view',
      errorModule: 'analysis',
      body: HitsBody,
      response: HitsResponse,
      errors: [1000, 1001, 1002, 1010, 1014, 1015, 1047, 1586],
      errorNotes: { 1586: 'no call matches: no key has a hit in the range and filters' },
      examples: {
        request: {
          filter: [{ key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-11-2026 23:59:59' }],
          breakDown: 'agentId',
          fields: ['TC', 'AC', 'MC', 'UC', 'CA', 'GH_UC', 'avgRingTime', 'avgHoldTime'],
        },
        // Agents 101 and 104 of the worked example in docs/metrics.md.
        response: {
          data: {
            '101': { TC: 3, AC: 1, MC: 2, UC: 3, CA: 1, GH_UC: 0, avgRingTime: 9, avgHoldTime: 30 },
            '104': { TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, GH_UC: 0, avgRingTime: 8, avgHoldTime: null },
          },
        },
      },
      async handler({ principal, body }) {
        const { dataJson } = await analysis.hits(principal.accountId, body);
        return Answer.data(dataJson);
      },
    }),
  ];
}
