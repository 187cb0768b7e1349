import { defineOperation } from '../../http/operation.js';
import { AuditListBody, AuditListResponse } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

export function auditOperations({ audit }: { audit: AuditService }) {
  return [
    defineOperation({
      module: 'audit',
      name: 'list',
      writes: false,
      summary: 'The audit trail: who changed what, newest first, with cursor paging',
      description:
        'One record per successful change (every writing operation but events/ingest, route/decide, login and logout), written in the ' +
        'change\'s transaction; secrets appear as "[redacted]". Login protection adds `auth/lockout` and `auth/loginAfterFailures` records. See docs/audit.md.',
      permission: 'audit.view',
      body: AuditListBody,
      response: AuditListResponse,
      errors: [1000, 1014, 1015, 1047],
      examples: {
        request: { targetType: 'agent', limit: 50 },
        response: {
          data: [
            {
              id: 42,
              at: 1768035600,
              principal: { kind: 'client', id: '2', name: 'Acme' },
              credential: 'session',
              ip: '203.0.113.7',
              operation: 'Agent/update',
              target: { type: 'agent', id: '17' },
              changes: { name: ['Priya', 'Priya Sharma'], password: ['[redacted]', '[redacted]'] },
            },
          ],
          nextCursor: null,
        },
      },
      async handler({ principal, body }) {
        return audit.list(principal.accountId, body);
      },
    }),
  ];
}
