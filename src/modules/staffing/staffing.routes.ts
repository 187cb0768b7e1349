import { defineOperation } from '../../http/operation.js';
import { ErlangBody, ErlangResponse } from './staffing.schemas.js';
import type { StaffingService } from './staffing.service.js';

const COMMON = [1000, 1001, 1002, 1010, 1014, 1015, 1047];

export function staffingOperations({ staffing }: { staffing: StaffingService }) {
  return [
    defineOperation({
      module: 'staffing',
      name: 'erlang',
      writes: false,
      summary: 'Agents one interval needs for a service level: Erlang C, or Erlang A (M/M/n+M) when patience is given (docs/staffing.md)',
      description:
        'PRODUCT.md §14. agents is the fewest meeting target and the occupancy cap; the other figures are at that many agents. ' +
        'serviceLevel is the share of all arriving calls answered within target.seconds (abandons count against it); asa the mean wait ' +
        'of all calls; occupancy carried traffic ÷ agents. Percentages and seconds to 2 decimals. Traffic over 10,000 Erlangs: 1001.',
      permission: 'analysis.view',
      body: ErlangBody,
      response: ErlangResponse,
      errors: COMMON,
      examples: {
        // The reference of PRODUCT.md §14 (docs/staffing.md works it through).
        request: { offered: 100, intervalMinutes: 30, aht: 180, target: { serviceLevel: 80, seconds: 20 }, shrinkage: 30 },
        response: { data: { traffic: 10, agents: 14, scheduled: 20, serviceLevel: 88.84, pWait: 17.41, asa: 7.84, occupancy: 71.43 } },
      },
      async handler({ body }) {
        return staffing.erlang(body);
      },
    }),
  ];
}
