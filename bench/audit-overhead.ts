/**
 * What the audit trail costs a change (docs/audit.md): one service call
 * (group/update's rename) measured bare and through the audit recorder (the
 * ambient transaction, the target read before and after, the record
 * inserted), interleaved in the same run, on SQLite and PostgreSQL.
 *
 *   npx tsx bench/audit-overhead.ts [--db sqlite|postgres|both] [--n 300] [--rounds 3]
 *
 * Prints the median per-change time of each and their ratio.
 */
import fs from 'node:fs';
import { parseArgs } from '../src/cli/args.js';
import { systemClock } from '../src/clock.js';
import { migrate } from '../src/db/migrate.js';
import type { Operation, OperationContext } from '../src/http/operation.js';
import type { Principal } from '../src/auth/principal.js';
import { ALL_PERMISSIONS } from '../src/auth/permissions.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { AuditService } from '../src/modules/audit/audit.service.js';
import { GroupService } from '../src/modules/group/group.service.js';
import { openFreshBenchDatabase } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const N = Number(options.n ?? 300);
const ROUNDS = Number(options.rounds ?? 3);
const which = String(options.db ?? 'both');

const op = { module: 'group', name: 'update', writes: true, audit: { target: 'group', id: () => 1 } } as unknown as Operation;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function run(dialect: 'sqlite' | 'postgres'): Promise<void> {
  const db = await openFreshBenchDatabase(dialect, 'audit');
  await migrate(db);
  const accountId = await new AccountService({ db, clock: systemClock }).create({ username: `bench-${Date.now()}`, password: 'bench-password', name: 'Bench' });
  const groups = new GroupService({ db, clock: systemClock });
  await groups.create(accountId, { groupId: 1, name: 'g' });
  const audit = new AuditService({ db, clock: systemClock });
  const principal: Principal = {
    kind: 'client',
    accountId,
    userId: String(accountId),
    agentId: null,
    isOperator: false,
    permissions: ALL_PERMISSIONS,
    canSee: true,
    credential: { type: 'session', hash: 'x' },
  };
  const ctx = { principal, body: {}, request: { ip: '127.0.0.1' } } as unknown as OperationContext<unknown>;
  let i = 0;
  const bare = async () => groups.rename(accountId, 1, `g${i++}`);
  const audited = async () => audit.record(op, ctx, async () => (await groups.rename(accountId, 1, `g${i++}`), {}));
  const times: Record<string, number[]> = { bare: [], audited: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, fn] of [
      ['bare', bare],
      ['audited', audited],
    ] as const) {
      const t0 = performance.now();
      for (let k = 0; k < N; k++) await fn();
      times[name]!.push((performance.now() - t0) / N);
    }
  }
  const b = median(times.bare!);
  const a = median(times.audited!);
  console.log(
    `${dialect}: bare ${b.toFixed(3)} ms/change, audited ${a.toFixed(3)} ms/change, ratio ${(a / b).toFixed(2)} (load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
  );
  await db.close();
}

for (const d of which === 'both' ? (['sqlite', 'postgres'] as const) : [which as 'sqlite' | 'postgres']) await run(d);
