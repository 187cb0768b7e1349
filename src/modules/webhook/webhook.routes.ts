import { defineOperation } from '../../http/operation.js';
import {
  CreateWebhookBody,
  CreateWebhookResponse,
  DeleteWebhookResponse,
  DeliveriesBody,
  DeliveriesResponse,
  ListWebhooksBody,
  ListWebhooksResponse,
  RedeliverBody,
  RedeliverResponse,
  UpdateWebhookBody,
  WebhookIdBody,
  WebhookResponse,
} from './webhook.schemas.js';
import type { Checked, WebhookService } from './webhook.service.js';

const ERRORS = [1000, 1012, 1014, 1015, 1047];
const NOTES = { 1012: 'no such webhook (or delivery) in the account' };
const EXAMPLE_URL = 'https://crm.example.com/hooks/calls';
const EXAMPLE_VIEW = {
  webhookId: 7,
  url: EXAMPLE_URL,
  name: 'CRM',
  filter: { cType: ['IBD' as const], did: ['18005550100'] },
  status: 'active' as const,
  lastError: null,
};

export function webhookOperations({ webhooks }: { webhooks: WebhookService }) {
  return [
    defineOperation({
      module: 'webhook',
      name: 'create',
      writes: true,
      audit: { target: 'webhook', created: ({ result }) => (result as { data: { webhookId: number } }).data.webhookId },
      prepare: ({ body }) => webhooks.checked(body.url),
      summary: 'Subscribe a URL to push reports (one per ended call); the URL is verified with GET (answer GODBLESSYOU)',
      description:
        'The `secret` signs every delivery (Standard Webhooks `webhook-signature`) and is shown only in this answer. A url that is not http(s) ' +
        'or resolves to a loopback, private, link-local or unspecified address is refused with 1000 unless the server runs with WEBHOOK_ALLOW_PRIVATE=1.',
      permission: 'webhook.manage',
      body: CreateWebhookBody,
      response: CreateWebhookResponse,
      errors: ERRORS,
      errorNotes: NOTES,
      examples: {
        request: { url: EXAMPLE_URL, name: 'CRM', filter: { cType: ['IBD'], did: ['18005550100'] } },
        response: {
          message: 'Webhook created',
          data: { webhookId: 7, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9WzGtTZ7MQk=', status: 'active' },
        },
      },
      async handler({ principal, body, prepared }) {
        return { message: 'Webhook created', data: await webhooks.create(principal.accountId, body, prepared as Checked) };
      },
    }),
    defineOperation({
      module: 'webhook',
      name: 'list',
      writes: false,
      summary: "The account's webhook subscriptions (without their secrets)",
      permission: 'webhook.manage',
      body: ListWebhooksBody,
      response: ListWebhooksResponse,
      errors: [1014, 1015, 1047],
      examples: { request: {}, response: { data: [EXAMPLE_VIEW] } },
      async handler({ principal }) {
        return { data: await webhooks.list(principal.accountId) };
      },
    }),
    defineOperation({
      module: 'webhook',
      name: 'update',
      writes: true,
      audit: { target: 'webhook', id: ({ body }) => body.webhookId },
      prepare: ({ principal, body }) => webhooks.checkedForUpdate(principal.accountId, body.webhookId, body.url),
      summary: 'Change a subscription (fields merged); a new url is checked and verified again',
      permission: 'webhook.manage',
      body: UpdateWebhookBody,
      response: WebhookResponse,
      errors: ERRORS,
      errorNotes: NOTES,
      examples: { request: { webhookId: 7, name: 'CRM' }, response: { message: 'Webhook updated', data: EXAMPLE_VIEW } },
      async handler({ principal, body, prepared }) {
        const { webhookId, ...fields } = body;
        return { message: 'Webhook updated', data: await webhooks.update(principal.accountId, webhookId, fields, prepared as Checked | undefined) };
      },
    }),
    defineOperation({
      module: 'webhook',
      name: 'delete',
      writes: true,
      audit: { target: 'webhook', id: ({ body }) => body.webhookId },
      summary: 'Remove a subscription with its deliveries and their log',
      permission: 'webhook.manage',
      body: WebhookIdBody,
      response: DeleteWebhookResponse,
      errors: ERRORS,
      errorNotes: NOTES,
      examples: { request: { webhookId: 7 }, response: { message: 'Webhook deleted', data: { webhookId: 7 } } },
      async handler({ principal, body }) {
        await webhooks.remove(principal.accountId, body.webhookId);
        return { message: 'Webhook deleted', data: { webhookId: body.webhookId } };
      },
    }),
    defineOperation({
      module: 'webhook',
      name: 'verify',
      writes: true,
      audit: { target: 'webhook', id: ({ body }) => body.webhookId },
      prepare: ({ principal, body }) => webhooks.probeOf(principal.accountId, body.webhookId),
      summary: 'Verify the url again (GET, answer GODBLESSYOU): active on success, else unverified with lastError',
      permission: 'webhook.manage',
      body: WebhookIdBody,
      response: WebhookResponse,
      errors: ERRORS,
      errorNotes: NOTES,
      examples: { request: { webhookId: 7 }, response: { message: 'Webhook verified', data: EXAMPLE_VIEW } },
      async handler({ principal, body, prepared }) {
        return { message: 'Webhook verified', data: await webhooks.verify(principal.accountId, body.webhookId, prepared as Checked) };
      },
    }),
    defineOperation({
      module: 'webhook',
      name: 'deliveries',
      writes: false,
      summary: 'The delivery log, newest first: each delivery with every attempt (time, HTTP status, duration, error, first 1 kB of the answer)',
      permission: 'webhook.manage',
      body: DeliveriesBody,
      response: DeliveriesResponse,
      errors: ERRORS,
      errorNotes: NOTES,
      examples: {
        request: { webhookId: 7, limit: 50 },
        response: {
          data: [
            {
              deliveryId: 42,
              webhookId: 7,
              callId: 'c-1001',
              status: 'delivered',
              attempts: [
                { at: 1768035600, httpStatus: 503, durationMs: 12, error: 'HTTP 503', response: 'busy' },
                { at: 1768035605, httpStatus: 200, durationMs: 9, error: null, response: 'ok' },
              ],
            },
          ],
          nextCursor: null,
        },
      },
      async handler({ principal, body }) {
        return await webhooks.deliveries(principal.accountId, body);
      },
    }),
    defineOperation({
      module: 'webhook',
      name: 'redeliver',
      writes: true,
      audit: { target: 'webhook', changes: ({ body }) => ({ redeliver: [null, body.deliveryId] }) },
      summary: 'Send a delivery again now (same body and webhook-id), with a fresh retry schedule',
      permission: 'webhook.manage',
      body: RedeliverBody,
      response: RedeliverResponse,
      errors: ERRORS,
      errorNotes: NOTES,
      examples: { request: { deliveryId: 42 }, response: { message: 'Delivery queued', data: { deliveryId: 42, status: 'pending' } } },
      async handler({ principal, body }) {
        await webhooks.redeliver(principal.accountId, body.deliveryId);
        return { message: 'Delivery queued', data: { deliveryId: body.deliveryId, status: 'pending' as const } };
      },
    }),
  ];
}
