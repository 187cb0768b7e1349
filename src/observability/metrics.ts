import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/types.js';

/** Prometheus metrics: requests by route and status, latency, database pool, process. */
export function installMetrics(app: FastifyInstance, db: Database): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'callcenter_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'callcenter_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Gauge({
    name: 'callcenter_db_pool_connections',
    help: 'Database connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = db.stats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });

  // Labelled children cached per route (and status): prom-client hashes a label object on every
  // inc/observe, a measurable share of a 60 µs request.
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(v: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${reply.statusCode} ${route}`;
    let counter = counters.get(key);
    if (!counter) counters.set(key, (counter = requests.labels({ route, status: reply.statusCode })));
    counter.inc();
    let timer = timers.get(route);
    if (!timer) timers.set(route, (timer = latency.labels({ route })));
    timer.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
