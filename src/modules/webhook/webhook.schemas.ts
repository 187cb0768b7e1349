import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';

const WebhookId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The subscription id (from webhook/create)' });

export const WebhookFilterSchema = Type.Object(
  {
    cType: Type.Optional(Type.Array(Type.Union([Type.Literal('IBD'), Type.Literal('OBD'), Type.Literal('CTC')]), { maxItems: 3 })),
    did: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 })),
    campaignId: Type.Optional(Type.Array(Type.Union([Type.String({ maxLength: 100 }), Type.Integer({ minimum: 0 })]), { maxItems: 1000 })),
    groupId: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 1000 })),
  },
  {
    additionalProperties: false,
    description: "A report is sent when every given list contains the call's value (campaignId 0: calls without a campaign)",
  },
);

const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'http(s) URL of the receiver; it must answer GODBLESSYOU to a GET' });
const Name = Type.String({ maxLength: 100 });

export const CreateWebhookBody = Type.Object({ url: Url, name: Type.Optional(Name), filter: Type.Optional(WebhookFilterSchema) });
export const UpdateWebhookBody = Type.Object({
  webhookId: WebhookId,
  url: Type.Optional(Url),
  name: Type.Optional(Name),
  filter: Type.Optional(WebhookFilterSchema),
});
export const WebhookIdBody = Type.Object({ webhookId: WebhookId });
export const ListWebhooksBody = Type.Object({});
export const DeliveriesBody = Type.Object({
  webhookId: Type.Optional(WebhookId),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])),
  callId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  cursor: Type.Optional(Type.String({ maxLength: 32, description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 50' })),
});
export const RedeliverBody = Type.Object({ deliveryId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const Status = Type.Union([Type.Literal('active'), Type.Literal('unverified'), Type.Literal('disabled')]);
const WebhookView = Type.Object({
  webhookId: Type.Integer(),
  url: Type.String(),
  name: Type.String(),
  filter: WebhookFilterSchema,
  status: Status,
  lastError: Type.Union([Type.String(), Type.Null()]),
});

export const CreateWebhookResponse = SuccessSchema({
  message: Type.String(),
  data: Type.Object({
    webhookId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    secret: Type.String({ description: 'whsec_ + base64 of 32 random bytes; shown only here' }),
    status: Status,
    lastError: Type.Optional(Type.String()),
  }),
});
export const WebhookResponse = SuccessSchema({ message: Type.String(), data: WebhookView });
export const ListWebhooksResponse = SuccessSchema({ data: Type.Array(WebhookView) });
export const DeleteWebhookResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ webhookId: Type.Integer() }) });
export const DeliveriesResponse = SuccessSchema({
  data: Type.Array(
    Type.Object({
      deliveryId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
      webhookId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
      callId: Type.String(),
      status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
      attempts: Type.Array(
        Type.Object({
          at: Type.Integer({ description: 'Unix seconds' }),
          httpStatus: Type.Union([Type.Integer(), Type.Null()]),
          durationMs: Type.Integer(),
          error: Type.Union([Type.String(), Type.Null()]),
          response: Type.Union([Type.String(), Type.Null()], { description: 'the first 1 kB of the answer' }),
        }),
      ),
    }),
  ),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const RedeliverResponse = SuccessSchema({
  message: Type.String(),
  data: Type.Object({ deliveryId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), status: Type.Literal('pending') }),
});
