import type { Clock } from '../../clock.js';
import type { Database } from '../../db/types.js';
import type { EncodedJson } from '../../http/answer.js';
import { analysisError } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import { mayGenerateCode } from '../../code-generation.js';
import { hitsDataJson, type Grid } from './wire/hits-json.js';
import { BucketDayCache } from './day-cache/bucket-day-cache.js';
import { GridCache } from './day-cache/day-grids.js';
import type { RawRequest } from './query/request.js';
import { planHits } from './query/plan.js';
import { choosePath, composable, type AnalysisPath } from './answer/path.js';
import { fromKeptDays } from './answer/kept-days.js';
import type { ChunkPool } from '../../http/chunk-pool.js';
import type { CacheUse } from '../../cache/tokened-cache.js';
import { HourCellsCache } from './answer/stored-hours.js';
import { fromDays, fromSplit } from './answer/cut-days.js';
import { fromCube, fromRaw, fromRollup } from './answer/grid-reads.js';

export type { AnalysisPath } from './answer/path.js';

export interface AnalysisServiceDeps {
  db: Database;
  clock: Clock;
  accounts: Pick<AccountService, 'settings'>;
  /** Memory for whole past days (ANALYSIS_CACHE_MB); see the constructor. */
  cacheBytes: number;
  /** The buffers large answers are written in (built once, in the composition root). */
  chunks: ChunkPool;
}

/**
 * analysis/hits. Answers from the roll-ups when the filters touch only the
 * date, the direction and the breakdown's own dimension (the daily table for
 * local-day-aligned ranges, the hourly table for hour-aligned ones in
 * whole-hour zones, kept days and the split reads for ranges that cut days);
 * otherwise it scans the calls of the range (indexed by queued time) and
 * adds the very same counter vectors. Which way: answer/path.ts; the parts:
 * answer/grid-reads.ts, answer/cut-days.ts, answer/kept-days.ts.
 */
export class AnalysisService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly accounts: Pick<AccountService, 'settings'>;
  private readonly caches: { days: BucketDayCache; grids: GridCache | null; cells: HourCellsCache; chunks: ChunkPool };

  /**
   * `cacheBytes`: memory for whole past days (ANALYSIS_CACHE_MB), half for
   * their hour cells (answer/stored-hours.ts: a month of hours of every
   * breakdown), a quarter for their answers' bytes (bucket-day-cache.ts: dates, and
   * hours of named keys), a quarter for their counter grids (day-grids.ts),
   * so the setting is what the node spends; 0 computes every answer afresh.
   */
  constructor({ db, clock, accounts, cacheBytes, chunks }: AnalysisServiceDeps) {
    this.db = db;
    this.clock = clock;
    this.accounts = accounts;
    // Whether answers are written by generated or plain writers is settled once, here at start (src/code-generation.ts).
    mayGenerateCode();
    this.caches = {
      days: new BucketDayCache(cacheBytes / 4),
      grids: cacheBytes > 0 ? new GridCache(cacheBytes / 4) : null,
      cells: new HourCellsCache(cacheBytes / 2),
      chunks,
    };
  }

  /** What this node keeps of past days for analysis/hits (GET /metrics, `callcenter_cache_bytes`). */
  cacheUse(): Record<string, CacheUse> {
    return {
      analysis_hour_cells: this.caches.cells.use(),
      analysis_day_answers: this.caches.days.use(),
      analysis_day_grids: this.caches.grids?.use() ?? { bytes: 0, maxBytes: 0 },
    };
  }

  /**
   * The answer's `data` as JSON bytes, in pieces to send one after another
   * (see hitsDataJson) or, for a large answer of hours, chunks written as they
   * are pulled (wire/key-major-json.ts), and the path that computed it.
   */
  async hits(accountId: number, body: RawRequest): Promise<{ dataJson: EncodedJson; path: AnalysisPath }> {
    const p = planHits(this.db, accountId, await this.accounts.settings(accountId), body, this.clock.now());
    const chosen = await choosePath(p);
    let path: AnalysisPath = chosen;
    const byDay = chosen !== 'cube' && chosen !== 'raw' ? await fromKeptDays(this.caches, p, chosen) : undefined;
    if (byDay !== undefined) {
      if (byDay === null) throw analysisError(1586);
      return { dataJson: byDay, path: chosen === 'split' ? 'days' : path };
    }
    const grid: Grid = new Map();
    // Ranges that cut days (ending now, starting at any second): kept whole days and two partial ones.
    const wholeDays = chosen !== 'cube' ? await composable(p) : null;
    if (wholeDays) {
      path = 'days';
      await fromDays(this.caches.grids, p, grid, wholeDays);
    } else if (chosen === 'split') await fromSplit(this.caches.grids, p, grid, p.query.range!);
    else if (chosen === 'raw') await fromRaw(p, grid);
    else if (chosen === 'cube') await fromCube(p, grid);
    else await fromRollup(p, chosen, grid);
    const dataJson = hitsDataJson(p.query, grid);
    if (dataJson === null) throw analysisError(1586);
    return { dataJson, path };
  }
}
