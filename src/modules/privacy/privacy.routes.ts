import { normaliseContact } from '../../http/contact.js';
import { defineOperation } from '../../http/operation.js';
import { EraseResponse, ExportResponse, NumberBody } from './privacy.schemas.js';
import type { PrivacyService } from './privacy.service.js';

/** privacy/erase and privacy/export (PRODUCT.md §12; docs/privacy.md). */
export function privacyOperations({ privacy }: { privacy: PrivacyService }) {
  return [
    defineOperation({
      module: 'privacy',
      name: 'erase',
      summary: 'Forget a number: remove its contact, lists and recordings; replace it in call history by `erased-<hash>`',
      description:
        'Removes the directory entry, DNC, sticky and blacklist entries and the recordings of the number, and replaces the number in call ' +
        'history, call reports, live calls, click-to-call rows, webhook delivery payloads and the live change log by `erased-<hash>` (the same ' +
        'for the same number within the account, so counts stay right). Aggregates (analysis and report roll-ups) hold no number and stay. ' +
        'See docs/privacy.md.',
      permission: 'privacy.manage',
      writes: true,
      audit: {
        target: 'contact',
        // The record names the number by its replacement, never the number itself (PRODUCT.md §12).
        id: ({ principal, body }) => privacy.replacementFor(principal.accountId, normaliseContact(body.number, 'number')),
        // What was removed or rewritten: each non-zero count, from what was stored to nothing.
        changes: ({ result }) =>
          Object.fromEntries(
            Object.entries((result as { data: Record<string, number> }).data)
              .filter(([, n]) => n > 0)
              .map(([k, n]) => [k, [n, 0]]),
          ),
      },
      body: NumberBody,
      response: EraseResponse,
      errors: [1000, 1005, 1014, 1015, 1047],
      examples: {
        request: { number: '+91 98111 00042' },
        response: { data: { contact: 1, dnc: 1, sticky: 2, blacklist: 1, calls: 14, recordings: 3 } },
      },
      async handler({ principal, body }) {
        const { replacement: _hash, ...counts } = await privacy.erase(principal.accountId, normaliseContact(body.number, 'number'));
        return { data: counts };
      },
    }),
    defineOperation({
      module: 'privacy',
      name: 'export',
      summary: 'Everything stored about a number (empty after an erasure)',
      permission: 'privacy.manage',
      writes: false,
      body: NumberBody,
      response: ExportResponse,
      errors: [1000, 1005, 1014, 1015, 1047],
      examples: {
        request: { number: '919811100042' },
        response: {
          data: {
            contact: { contact: '919811100042', name: 'Ravi Kumar', email: 'ravi@example.com' },
            dnc: { dnc: 1, updatedAt: 1768035600 },
            sticky: [{ scope: 'all', cli: '', groupId: 0, agentId: 7, expiry: -1, createdAt: 1768035600 }],
            blacklist: ['18005550100'],
            calls: [{ kind: 'finished', callId: 'c-981', queuedAt: 1768035605, outcome: 'answered', recordings: [{ path: 'a2/c-981.wav', at: 1768035650 }] }],
          },
        },
      },
      async handler({ principal, body }) {
        return { data: await privacy.export(principal.accountId, normaliseContact(body.number, 'number')) };
      },
    }),
  ];
}
