import { preserializedData } from '../../http/envelope.js';
import { defineOperation } from '../../http/operation.js';
import { HitsBody, HitsResponse } from './analysis.schemas.js';
import type { AnalysisService } from './analysis.service.js';

export function analysisOperations({ analysis }: { analysis: AnalysisService }) {
  return [
    defineOperation({
      module: 'analysis',
      name: 'hits',
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
      async handler({ principal, body }) {
        const { dataJson } = await analysis.hits(principal.accountId, body);
        return preserializedData(dataJson);
      },
    }),
  ];
}
