/**
 * Run by analysis-no-codegen.test.ts as its own process, under
 * `node --disallow-code-generation-from-strings`: answers analysis
 * questions (stdin: a JSON array of bodies) with the AnalysisService built
 * on the test's database (DATA_DIR or DATABASE_URL), and prints each
 * answer's `data` bytes, base64, as a JSON array (or `{code}` for an error).
 * Not through HTTP: Fastify's router and schema compilers generate code at
 * route registration, so no Fastify app can start under that flag.
 */
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/db/open.js';
import { AccountService } from '../../src/modules/account/account.service.js';
import { AnalysisService } from '../../src/modules/analysis/analysis.service.js';
import { AppError } from '../../src/errors/catalogue.js';
import { ChunkPool } from '../../src/http/chunk-pool.js';
import { isDataStream } from '../../src/http/answer.js';
import { mayGenerateCode } from '../../src/code-generation.js';

const config = loadConfig(process.env);
const db = openDatabase(config);
const clock = { now: () => Number(process.env.CLOCK_MS) };
const analysis = new AnalysisService({
  db,
  clock,
  accounts: new AccountService({ db, clock }),
  cacheBytes: config.analysisCacheBytes,
  chunks: new ChunkPool(),
});
const questions = JSON.parse(await new Response(process.stdin as unknown as ReadableStream).text()) as Array<Record<string, unknown>>;
const out: Array<string | { code: number }> = [];
for (const body of questions) {
  try {
    const { dataJson } = await analysis.hits(Number(process.env.ACCOUNT_ID), body);
    const parts: Buffer[] = [];
    if (!isDataStream(dataJson)) parts.push(...dataJson);
    else
      for (const chunk of dataJson.chunks) {
        parts.push(Buffer.from(chunk));
        dataJson.release?.(chunk);
      }
    out.push(Buffer.concat(parts).toString('base64'));
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    out.push({ code: err.code });
  }
}
process.stdout.write(JSON.stringify({ codeGeneration: mayGenerateCode(), answers: out }));
await db.close();
