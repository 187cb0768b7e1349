import type { FastifyBaseLogger } from 'fastify';
import type { AuthService } from './auth/auth.service.js';
import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import type { Database } from './db/types.js';

/** What every module is built from: passed explicitly, never imported as a global. */
export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  auth: AuthService;
  log: FastifyBaseLogger;
}
