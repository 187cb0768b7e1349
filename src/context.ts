import type { FastifyBaseLogger } from 'fastify';
import type { AuthService } from './auth/auth.service.js';
import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import type { Database } from './db/types.js';
import type { Admission } from './http/admission.js';

/** What every module is built from: passed explicitly, never imported as a global. */
export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  auth: AuthService;
  /** The one way every HTTP surface admits a request (http/admission.ts). */
  admission: Admission;
  log: FastifyBaseLogger;
}
