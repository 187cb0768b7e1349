import path from 'node:path';

/** Typed configuration read once from the environment (PRODUCT.md §2). */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Where recordings live (`call.recording` paths are relative to it); default DATA_DIR/recordings. */
  recordingsDir: string;
  /** postgres://… selects PostgreSQL; undefined selects the embedded SQLite database. */
  databaseUrl: string | undefined;
  adminUsername: string | undefined;
  adminPassword: string | undefined;
  demo: boolean;
  sessionTtlSeconds: number;
  /** Requests per minute allowed for one resolved principal (or one IP for requests without credentials); 0 disables (RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number;
  /** Credentials that did not resolve, per minute from one client IP, before its unknown credentials are answered 429 (AUTH_FAILURES_PER_MINUTE, 100); 0 disables. */
  authFailuresPerMinute: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Maximum request body in bytes. */
  bodyLimit: number;
  pgPoolSize: number;
  /** Memory for analysis answers of past days (src/modules/analysis/day-cache/bucket-day-cache.ts), in bytes; 0 disables. */
  analysisCacheBytes: number;
  /** Answers of whole days kept by report/queue and report/agent (src/modules/report/answers/); 0: none. */
  reportCacheBytes: number;
  /** POISON_RELEASED_CHUNKS=1 (the tests): released answer buffers are filled with 0xDB, so a use after release shows (http/chunk-pool.ts). */
  poisonReleasedChunks: boolean;
  /** WEBHOOK_ALLOW_PRIVATE=1: webhooks may target loopback/private/link-local addresses (on-premise CRMs, tests). */
  webhookAllowPrivate: boolean;
  /** WEBHOOK_DELIVERY=0: this node writes the outbox but sends nothing (an ingest-only node; another node delivers). */
  webhookDelivery: boolean;
  /** CAMPAIGN_DIALER=0: this node dials no campaign (another node does; tests tick the dialer by hand). */
  campaignDialer: boolean;
  /** Timeout of a webhook request (verification and delivery); 10 s (PRODUCT.md §9), shorter only in tests. */
  webhookTimeoutMs: number;
  /** RETENTION_INTERVAL_MINUTES: how often the retention job runs (src/modules/retention); 0: never on this node (CLI only). */
  retentionIntervalMinutes: number;
  /** ANALYSIS_HOUR_GRIDS_MINUTES: how often the stored hour grids of the last 35 days are brought up to date (analysis/hour-grid-job.ts); 0: never on this node. */
  analysisHourGridsMinutes: number;
  /** RETENTION_BATCH: rows per retention batch (one short transaction each). */
  retentionBatch: number;
  /** RETENTION_PAUSE_MS: pause between retention batches, default 50 (0: only yield to what is waiting). */
  retentionPauseMs: number;
  /** Login protection (PRODUCT.md §4, docs/audit.md). */
  login: LoginProtection;
}

export interface LoginProtection {
  /** Failed logins for one username within the window before it is held back (LOGIN_USER_FAILURES, 5). */
  userFailures: number;
  /** Failed logins from one client IP within the window before it is held back (LOGIN_IP_FAILURES, 100). */
  ipFailures: number;
  /** The window failures are counted in, seconds (LOGIN_WINDOW_SECONDS, 900). */
  windowSeconds: number;
  /** The first hold-back, seconds; it doubles with each further failure (LOGIN_BACKOFF_START_SECONDS, 1). */
  backoffStartSeconds: number;
  /** The longest hold-back, seconds (LOGIN_BACKOFF_MAX_SECONDS, 900). */
  backoffMaxSeconds: number;
  /** Password hashes running at once on this node; beyond, 429 at once (LOGIN_CONCURRENCY, 4). */
  concurrency: number;
}

export class ConfigError extends Error {
  constructor(variable: string, value: string, expected: string) {
    super(`Invalid configuration: ${variable}=${JSON.stringify(value)} (expected ${expected})`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, raw, `an integer from ${min} to ${max}`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, raw, `an integer from ${min} to ${max}`);
  return value;
}

function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw.toLowerCase() === 'false') return false;
  if (raw === '1' || raw.toLowerCase() === 'true') return true;
  throw new ConfigError(name, raw, '1/true or 0/false');
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    // Never echo the URL itself: it may carry a password.
    throw new ConfigError('DATABASE_URL', '<hidden>', 'a postgres:// or postgresql:// URL');
  }
  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', logLevel, LOG_LEVELS.join('|'));
  const adminUsername = env.CALLCENTER_ADMIN_USERNAME?.trim() || undefined;
  const adminPassword = env.CALLCENTER_ADMIN_PASSWORD || undefined;
  if (adminPassword !== undefined && adminPassword.length < 8) {
    throw new ConfigError('CALLCENTER_ADMIN_PASSWORD', '<hidden>', 'at least 8 characters');
  }
  const host = env.HOST?.trim() || '127.0.0.1';
  const dataDir = path.resolve(env.DATA_DIR?.trim() || './data');
  return {
    host,
    port: integer(env, 'PORT', 8080, 0, 65535),
    dataDir,
    recordingsDir: path.resolve(dataDir, env.RECORDINGS_DIR?.trim() || 'recordings'),
    databaseUrl,
    adminUsername,
    adminPassword,
    demo: flag(env, 'CALLCENTER_DEMO'),
    sessionTtlSeconds: integer(env, 'SESSION_TTL_SECONDS', 43200, 60, 31_536_000),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600_000, 0, 1_000_000_000),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 100, 0, 1_000_000_000),
    logLevel,
    bodyLimit: 1024 * 1024,
    pgPoolSize: integer(env, 'PG_POOL_SIZE', 10, 1, 200),
    analysisCacheBytes: integer(env, 'ANALYSIS_CACHE_MB', 32, 0, 65_536) * 2 ** 20,
    reportCacheBytes: integer(env, 'REPORT_CACHE_MB', 32, 0, 65_536) * 2 ** 20,
    poisonReleasedChunks: flag(env, 'POISON_RELEASED_CHUNKS'),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    webhookDelivery: env.WEBHOOK_DELIVERY === undefined || env.WEBHOOK_DELIVERY === '' ? true : flag(env, 'WEBHOOK_DELIVERY'),
    webhookTimeoutMs: 10_000,
    campaignDialer: env.CAMPAIGN_DIALER === undefined || env.CAMPAIGN_DIALER === '' ? true : flag(env, 'CAMPAIGN_DIALER'),
    login: {
      userFailures: integer(env, 'LOGIN_USER_FAILURES', 5, 1, 1_000_000),
      ipFailures: integer(env, 'LOGIN_IP_FAILURES', 100, 1, 1_000_000),
      windowSeconds: integer(env, 'LOGIN_WINDOW_SECONDS', 900, 1, 86_400),
      backoffStartSeconds: integer(env, 'LOGIN_BACKOFF_START_SECONDS', 1, 1, 86_400),
      backoffMaxSeconds: integer(env, 'LOGIN_BACKOFF_MAX_SECONDS', 900, 1, 86_400),
      concurrency: integer(env, 'LOGIN_CONCURRENCY', 4, 1, 1024),
    },
    retentionIntervalMinutes: integer(env, 'RETENTION_INTERVAL_MINUTES', 60, 0, 10_080),
    analysisHourGridsMinutes: integer(env, 'ANALYSIS_HOUR_GRIDS_MINUTES', 10, 0, 1_440),
    retentionBatch: integer(env, 'RETENTION_BATCH', 500, 10, 100_000),
    retentionPauseMs: integer(env, 'RETENTION_PAUSE_MS', 50, 0, 60_000),
  };
}
