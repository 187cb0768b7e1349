import type { FastifyError, FastifyInstance } from 'fastify';
import { DatabaseUnavailableError } from '../db/types.js';
import { errorEnvelope } from './envelope.js';
import { AppError, GENERAL, type CatalogueModule } from '../errors/catalogue.js';
import { validationError } from './validation.js';

/**
 * Every failure leaves as an error envelope. Application errors use HTTP 200
 * (as the vendor does); 404, 413, 429, 503 (1010) and 500 keep their HTTP
 * status. Nothing internal (stack, SQL, driver message) reaches the client.
 */
/** A byte count as people read it: 1 MiB, 512 KiB, 1000 bytes. */
export function byteSize(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1 << 10 && n % (1 << 10) === 0) return `${n / (1 << 10)} KiB`;
  return `${n} bytes`;
}

export function installErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  const tooLarge = `Request body too large (limit ${byteSize(bodyLimit)})`;
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    if (err instanceof AppError) {
      if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
      return reply.code(err.httpStatus).send(errorEnvelope(err.code, err.message));
    }
    const e = err as FastifyError;
    if (e.validation) {
      const module = (request.routeOptions.config as { errorModule?: CatalogueModule }).errorModule ?? 'general';
      const appErr = validationError(e.validation as never, request.routeOptions.schema?.body, module);
      return reply.code(200).send(errorEnvelope(appErr.code, appErr.message));
    }
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send(errorEnvelope(413, tooLarge));
    }
    if (e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e instanceof SyntaxError) {
      return reply.code(200).send(errorEnvelope(1047, `${GENERAL[1047]}: the body must be a JSON object`));
    }
    if (err instanceof DatabaseUnavailableError) {
      request.log.error({ err: err.cause }, 'database unavailable');
      return reply.code(503).send(errorEnvelope(1010, GENERAL[1010]));
    }
    if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
      return reply.code(e.statusCode).send(errorEnvelope(e.statusCode, 'Bad request'));
    }
    request.log.error({ err }, 'unexpected failure');
    return reply.code(500).send(errorEnvelope(500, 'Internal server error'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorEnvelope(404, `Not found: ${request.method} ${request.url.split('?')[0]}`));
  });
}
