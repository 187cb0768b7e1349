import path from 'node:path';
import type { Config } from '../config/config.js';
import { PostgresDatabase } from './postgres.js';
import { SqliteDatabase } from './sqlite.js';
import type { Database } from './types.js';

export function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPoolSize'>): Database {
  if (config.databaseUrl) return new PostgresDatabase(config.databaseUrl, config.pgPoolSize);
  return new SqliteDatabase(path.join(config.dataDir, 'callcenter.db'));
}
