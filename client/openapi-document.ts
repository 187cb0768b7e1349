import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';

/**
 * The app's OpenAPI document, built in-process (no server, no network): the
 * app on a throw-away embedded database, asked for `app.swagger()`. Used by
 * `npm run client:generate` and by the test that validates the document.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'cc-openapi-'));
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const db = openDatabase(config);
  try {
    await migrate(db);
    const { app } = await buildApp({ config, db });
    try {
      await app.ready();
      // A deep copy: the generator and validators may annotate the object they are given.
      return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
