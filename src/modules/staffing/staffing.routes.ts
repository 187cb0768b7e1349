import { Answer } from '../../http/answer.js';
import { defineOperation } from '../../http/operation.js';
import { ErlangBody, ErlangResponse, PlanBody, PlanResponse } from './staffing.schemas.js';
import type { StaffingService } from './staffing.service.js';

const COMMON = [1000, 1001, 1002, 1010, 1014, 1015, 1047];
const PLAN_HEADER = ['groupId', 'start', 'end', 'forecastOffered', 'forecastAht', 'agents', 'scheduled', 'offered', 'loggedIn', 'gap'];

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
    defineOperation({
      module: 'staffing',
      name: 'plan',
      writes: false,
      summary: 'A day’s staffing plan per group and interval: forecast from the same weekday of past weeks, agents needed, and who was there',
      description:
        'PRODUCT.md §14, docs/staffing.md "The plan". Per group and local interval of the day: forecastOffered (mean offered of the same weekday and ' +
        'wall-clock interval over the `weeks` weeks before, from report/queue’s roll-ups), forecastAht, agents and scheduled (staffing/erlang on them); ' +
        'for intervals over (end ≤ now) offered, loggedIn (report/agent login seconds ÷ interval seconds) and gap (loggedIn − agents), else null. ' +
        'Rows ordered by groupId then start. With `format: "csv"` the rows as text/csv (RFC 4180).',
      permission: 'analysis.view',
      body: PlanBody,
      response: PlanResponse,
      errors: [...COMMON, 1006],
      examples: {
        request: { date: '11-09-2026', groupId: 7, interval: '30m', target: { serviceLevel: 80, seconds: 20 }, shrinkage: 30 },
        response: {
          data: [
            {
              groupId: 7,
              start: 1794216600,
              end: 1794218400,
              forecastOffered: 100,
              forecastAht: 180,
              agents: 14,
              scheduled: 20,
              offered: 96,
              loggedIn: 13.5,
              gap: -0.5,
            },
          ],
        },
      },
      async handler({ principal, body }) {
        const rows = await staffing.plan(principal.accountId, body);
        return body.format === 'csv' ? Answer.csv(PLAN_HEADER, rows) : { data: rows };
      },
    }),
  ];
}
