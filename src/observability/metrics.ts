import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/types.js';
import { RouteHistogram, type RouteSeries } from './route-histogram.js';
import { logSwallowedTo, swallowedCounts } from '../swallowed.js';

/**
 * prom-client's default metrics that break Prometheus' naming rules (`promtool check metrics`:
 * a gauge must not end in `_total`). Each is the sum of the per-type gauge without the suffix
 * (`sum without (type) (nodejs_active_handles)`), so they are dropped rather than renamed, as
 * prom-client's maintainers intend to do (prometheus/client_js#283).
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** Every error envelope starts so (PRODUCT.md §3: `{"status":"error","code":N,"message":"…"}`, http/envelope.ts). */
const ERROR_PREFIX = '{"status":"error","code":';

/** What the stream reports (modules/events/stream.ts, StreamObserver). */
export interface StreamMetrics {
  opened(): void;
  closed(): void;
  reset(reason: string): void;
}

/** What a cache holds and may hold, in bytes (cache/tokened-cache.ts answers it; observability imports no module). */
interface CacheUse {
  bytes: number;
  maxBytes: number;
}

export interface Metrics {
  stream: StreamMetrics;
  /** Adds caches to `callcenter_cache_bytes` and `callcenter_cache_max_bytes`, read at every scrape. */
  watchCaches(read: () => Record<string, CacheUse>): void;
  /** The answer buffers' refused releases (http/chunk-pool.ts), read at every scrape as `callcenter_chunk_releases_refused_total`. */
  watchChunks(read: () => Readonly<Record<string, number>>): void;
  /** events/ingest's transactions and the requests' batches they applied (modules/events/ingest-merge.ts), read at every scrape. */
  watchIngest(read: () => Readonly<{ transactions: number; batches: number }>): void;
}

/**
 * Prometheus metrics (docs/metrics.md, "Service metrics"): requests by route and status,
 * latency, application errors by route and code, streams, database pool, process.
 */
export function installMetrics(app: FastifyInstance, db: Database): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  const requests = new Counter({
    name: 'callcenter_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const latency = new RouteHistogram(
    'callcenter_http_request_duration_seconds',
    'HTTP request latency',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registry,
  );
  const errors = new Counter({
    name: 'callcenter_api_errors_total',
    help: 'Answers in the error envelope by route and error code, whatever their HTTP status (application errors come with HTTP 200)',
    labelNames: ['route', 'code'] as const,
    registers: [registry],
  });
  const streamsOpen = new Gauge({
    name: 'callcenter_stream_connections_open',
    help: 'Open GET /api/v2/stream connections on this node',
    registers: [registry],
  });
  const streams = new Counter({
    name: 'callcenter_stream_connections_total',
    help: 'GET /api/v2/stream connections accepted (credentials and permission good) on this node',
    registers: [registry],
  });
  const resets = new Counter({
    name: 'callcenter_stream_resets_total',
    help: 'Stream connections answered with a reset event, by reason (a Last-Event-ID the change log cannot resume from)',
    labelNames: ['reason'] as const,
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

  logSwallowedTo(app.log);
  new Counter({
    name: 'callcenter_swallowed_errors_total',
    help: 'Errors logged and not passed on, by site (swallowed.ts): a lock release, an effect after a commit, a login audit record',
    labelNames: ['site'] as const,
    registers: [registry],
    collect() {
      // The counts are the process's own (swallowed.ts); a counter's value is set by adding what is new.
      this.reset();
      for (const [site, n] of swallowedCounts()) this.inc({ site }, n);
    },
  });

  let chunkRefusals: () => Readonly<Record<string, number>> = () => ({ twice: 0, stale: 0, shared: 0 });
  new Counter({
    name: 'callcenter_chunk_releases_refused_total',
    help: 'Releases of pooled answer buffers refused, by reason (twice: released again; stale: its buffer was handed out again; shared: two chunks of one buffer). Any is a bug; none can give one buffer to two answers',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, n] of Object.entries(chunkRefusals())) this.inc({ reason }, n);
    },
  });

  let ingest: () => Readonly<{ transactions: number; batches: number }> = () => ({ transactions: 0, batches: 0 });
  new Counter({
    name: 'callcenter_ingest_transactions_total',
    help: 'Transactions that applied events/ingest batches on this node (batches of one account that waited for each other are applied together)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(ingest().transactions);
    },
  });
  new Counter({
    name: 'callcenter_ingest_batches_total',
    help: 'events/ingest requests whose batch was applied on this node; divided by callcenter_ingest_transactions_total, the batches a transaction applied',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(ingest().batches);
    },
  });

  const caches: (() => Record<string, CacheUse>)[] = [];
  const cacheGauge = (name: string, help: string, pick: (u: CacheUse) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['cache'] as const,
      registers: [registry],
      collect() {
        for (const read of caches) for (const [cache, use] of Object.entries(read())) this.set({ cache }, pick(use));
      },
    });
  cacheGauge('callcenter_cache_bytes', "Bytes this node keeps of past days' answers, by cache (ANALYSIS_CACHE_MB, REPORT_CACHE_MB)", (u) => u.bytes);
  cacheGauge('callcenter_cache_max_bytes', 'The budget of each of those caches in bytes', (u) => u.maxBytes);

  // Labelled children cached per route (and status or code): prom-client hashes a label object
  // on every inc/observe, a measurable share of a 60 µs request.
  // Per route: its counters by status and its latency series. The route string is the route's own
  // (its hash computed once), where a key built per request cost a concatenation and a hash.
  const routes = new Map<string, { byStatus: Map<number, { inc(): void }>; series: RouteSeries }>();
  const errorCounters = new Map<string, { inc(): void }>();
  const routeOf = (request: { routeOptions: { url?: string } }) => request.routeOptions.url ?? 'unmatched';

  // The code is read from the answer as sent, so every error counts whoever answered it (the
  // error handler, the stream's refusals, the not-found handler). Serialised answers are strings
  // here; success answers sent as ready bytes are Buffers and skipped at the first test.
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (typeof payload === 'string' && payload.startsWith(ERROR_PREFIX)) {
      const code = String(parseInt(payload.slice(ERROR_PREFIX.length, ERROR_PREFIX.length + 12), 10));
      const route = routeOf(request);
      const key = `${code} ${route}`;
      let counter = errorCounters.get(key);
      if (!counter) errorCounters.set(key, (counter = errors.labels({ route, code })));
      counter.inc();
    }
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    let r = routes.get(route);
    if (!r) routes.set(route, (r = { byStatus: new Map(), series: latency.route(route) }));
    const status = reply.statusCode;
    let counter = r.byStatus.get(status);
    if (!counter) r.byStatus.set(status, (counter = requests.labels({ route, status })));
    counter.inc();
    latency.observe(r.series, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });

  return {
    watchCaches: (read) => void caches.push(read),
    watchChunks: (read) => void (chunkRefusals = read),
    watchIngest: (read) => void (ingest = read),
    stream: {
      opened() {
        streams.inc();
        streamsOpen.inc();
      },
      closed() {
        streamsOpen.dec();
      },
      reset(reason) {
        resets.inc({ reason });
      },
    },
  };
}
