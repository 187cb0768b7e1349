import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { AuthService } from './auth/auth.service.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/config.js';
import type { AppContext } from './context.js';
import type { Database } from './db/types.js';
import { installBodyParsing } from './http/body.js';
import { installCompression } from './http/compression.js';
import { installCors } from './http/cors.js';
import { installWriteBatching } from './http/write-batching.js';
import { ErrorEnvelopeSchema } from './http/envelope.js';
import { installErrorHandling } from './http/error-handler.js';
import { nameWildcards, SECURITY_SCHEMES, shareResponses } from './http/openapi.js';
import { registerOperation } from './http/operation.js';
import { Admission } from './http/admission.js';
import { RequestLimits } from './http/request-limits.js';
import { CODE_KEYWORDS } from './http/validation.js';
import { allOperations, MODULE_TAGS } from './modules/index.js';
import { AuditService } from './modules/audit/audit.service.js';
import { buildServices, type Services } from './modules/services.js';
import { registerStream } from './modules/events/stream.js';
import { clickToCallV3 } from './modules/switch/clicktocall-v3.js';
import { callReportSurfaces } from './modules/callreport/callreport.routes.js';
import { contactListCsvSurface } from './modules/contactlist/contactlist.csv-route.js';
import { registerSurface } from './http/surface.js';
import { lazyChildLogger } from './observability/lazy-child-logger.js';
import { installMetrics } from './observability/metrics.js';
import { installApp } from './modules/wallboard/app.static.js';
import { installWallboard } from './modules/wallboard/wallboard.static.js';

export interface BuildOptions {
  config: Config;
  db: Database;
  clock?: Clock;
  /** Check every success body against its schema (on in tests). */
  validateResponses?: boolean;
  /** Set once migrations ran; /healthz answers 503 before. */
  ready?: () => boolean;
  /** Log lines to standard error (a CLI command whose standard output is its answer, e.g. `seed --demo`'s JSON). */
  logToStderr?: boolean;
}

/**
 * Request ids for log lines, shaped like a UUID: a random prefix per process
 * and a counter. randomUUID() per request was ~0.3 µs of a hot lookup; the
 * ids stay unique across processes and nodes (the prefix) without it.
 */
const REQUEST_ID_PREFIX = randomUUID().slice(0, 24);
let requestCounter = 0;
function nextRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x1000000000000;
  return REQUEST_ID_PREFIX + requestCounter.toString(16).padStart(12, '0');
}

/** Never logged: credentials in query strings (the stream) are cut out of the URL. */
function redactUrl(url: string): string {
  return url.replace(/([?&](?:ssid|token)=)[^&]*/gi, '$1[redacted]').replace(/(\/directstream\/)[^/?]*/i, '$1[redacted]');
}

/** Builds the whole application on an open, migrated database. Never listens. */
export async function buildApp(opts: BuildOptions): Promise<{ app: FastifyInstance; ctx: AppContext; services: Services }> {
  const { config, db } = opts;
  const clock = opts.clock ?? systemClock;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(opts.logToStderr ? { stream: process.stderr } : {}),
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.ssid', '*.token'], censor: '[redacted]' },
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: redactUrl(req.url), id: req.id }),
      },
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : nextRequestId();
    },
    // request.log is made on first use: most requests log nothing (observability/lazy-child-logger.ts).
    childLoggerFactory: lazyChildLogger,
    // Per-request lines are written at debug level by our own hook (with credentials cut out).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    ajv: { customOptions: { coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, keywords: CODE_KEYWORDS } },
  });
  // Answers are checked against their schema in tests (http/send-answer.ts), not shaped by it: JSON as the handler built it.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // Lockouts and logins after failures are audit records (PRODUCT.md §4, §12): the trail exists before the credentials.
  const audit = new AuditService({ db, clock });
  const auth = new AuthService({
    db,
    clock,
    sessionTtlMs: config.sessionTtlSeconds * 1000,
    loginRules: config.login,
    loginEvents: (e) => audit.recordLogin(e),
  });
  await auth.start();
  app.addHook('onClose', async () => auth.stop());
  // The one admission path of every surface (PRODUCT.md §4), with this node's request limits.
  const limits = new RequestLimits({ perMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailuresPerMinute }, () => clock.now());
  const admission = new Admission(auth, limits);
  const ctx: AppContext = { config, db, clock, auth, admission, log: app.log };

  if (config.logLevel === 'debug' || config.logLevel === 'trace') {
    // Only registered when it logs: the hot path pays nothing for it otherwise.
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug({ url: redactUrl(request.url), status: reply.statusCode, ms: reply.elapsedTime }, 'request');
    });
  }

  await installCompression(app);
  installBodyParsing(app);
  installCors(app);
  installErrorHandling(app, config.bodyLimit);
  const metrics = installMetrics(app, db);
  installWriteBatching(app);

  app.addSchema(ErrorEnvelopeSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Call Center Management API',
        version: '2.0.0',
        description:
          'Every operation is `POST /api/v2/{Module}/{operation}` (segments match case-insensitively) with a JSON body carrying ' +
          'the credentials: `ssid` (from `auth/login`), or `userId` + `token` (from `auth/token`). The security schemes name these ' +
          'body fields; OpenAPI has no location for credentials inside a body.\n\n' +
          'Success: `{"status": "success", "code": 200, …}`. Application errors are answered with HTTP 200 and the error envelope ' +
          '`{"status": "error", "code": N, "message": "…"}`; each operation lists its codes and what they mean. Other statuses, ' +
          'each with the envelope: 404 (unknown path), 413 (body too large), 429 (rate limited), 503 (database unreachable, ' +
          'code 1010), 500 (unexpected failure).\n\n' +
          'Live changes: `GET /api/v2/stream` (Server-Sent Events).',
      },
      servers: [{ url: '/', description: 'The service that serves this document' }],
      tags: [...MODULE_TAGS],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // Schemas added with an $id (the error envelope) keep it as their component name, not `def-0`.
    // The answers with another status than 200, the same on every operation, are written once (components.responses).
    transformObject: (documentObject) =>
      'openapiObject' in documentObject ? shareResponses(nameWildcards(documentObject.openapiObject)) : documentObject.swaggerObject,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      if (opts.ready && !opts.ready()) throw new Error('not migrated');
      await db.ping();
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  installWallboard(app);
  installApp(app);

  const services = buildServices(ctx, { audit });
  metrics.watchCaches(() => ({ ...services.analysis.cacheUse(), ...services.reports.cacheUse() }));
  metrics.watchChunks(() => services.chunks.refused);
  metrics.watchIngest(() => services.events.mergeStats);
  for (const op of allOperations(services)) {
    registerOperation(app, op, { admission, validateResponses: opts.validateResponses ?? false, audit: services.audit });
  }
  registerStream(app, ctx, services.liveState, { observer: metrics.stream });
  for (const surface of [
    clickToCallV3(services.switches),
    ...callReportSurfaces(services.callReports),
    contactListCsvSurface(services.contactLists, services.audit),
  ]) {
    registerSurface(app, surface, { admission, audit: services.audit });
  }
  // The outbox is sent from the moment the app is ready (after migrations) until it closes (unless WEBHOOK_DELIVERY=0).
  if (config.webhookDelivery) app.addHook('onReady', async () => services.webhookWorker.start());
  // Hourly by default; every node starts it, the lock in the database lets one run at a time.
  app.addHook('onReady', async () => services.retention.start(config.retentionIntervalMinutes * 60_000));
  // Every 10 minutes by default; one node at a time, under a lock in the database.
  app.addHook('onReady', async () => services.hourGrids.start(config.analysisHourGridsMinutes * 60_000));
  // Campaigns are dialled from every node that allows it; a lease per campaign in the database lets one node at a time dial each.
  if (config.campaignDialer) app.addHook('onReady', async () => services.dialerWorker.start());
  app.addHook('onClose', async () => {
    await services.dialerWorker.stop();
    await services.hourGrids.stop();
    await services.retention.stop();
    await services.webhookWorker.stop();
    await services.webhookHttp.close();
  });
  return { app, ctx, services };
}
