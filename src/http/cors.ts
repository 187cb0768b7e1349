import type { FastifyInstance } from 'fastify';

/**
 * Permissive CORS as the vendor answers it: the request's Origin reflected,
 * credentials allowed; every OPTIONS preflight answers 204.
 */
export function installCors(app: FastifyInstance): void {
  // A callback hook, not an async one: every request runs it, and an async hook costs a promise and a microtask.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-allow-credentials', 'true');
      reply.header('vary', 'Origin');
    }
    if (request.method === 'OPTIONS') {
      const asked = request.headers['access-control-request-headers'];
      reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
      reply.header('access-control-allow-headers', asked ?? 'content-type, authorization');
      reply.header('access-control-max-age', '86400');
      reply.code(204).send(); // answered: the request goes no further (done is not called)
      return;
    }
    done();
  });
}
