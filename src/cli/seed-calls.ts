import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import type { Database } from '../db/types.js';
import { demoCredentials } from '../demo/seed.js';
import { AccountService } from '../modules/account/account.service.js';
import { bulkLoadCalls, type LoadProgress } from '../modules/analysis/rollup/bulk-load.js';
import { generateHistory, type Topology } from '../demo/history-generator.js';
import { rebuildRollups } from '../modules/analysis/rollup/rebuild.js';
import { AgentHistoryBuilder } from '../demo/agent-history.js';
import { ReportAgentTimeSink, ReportCallSink } from '../modules/report/rollup/report-sinks.js';
import { parseArgs } from './args.js';

const GROUPS = 20;
const DIDS = 50;
const AGENTS = 200;
const CAMPAIGNS = 12;

/**
 * The groups, DIDs and agents the history refers to, created when missing
 * (stable names, so seeding again reuses them): groups 55 and 101…119, DIDs
 * 80<account><nnn>, agents seed-agent-<account>-<n>@seed.invalid each in two
 * groups, campaigns camp-01…camp-12.
 */
export async function seedTopology(db: Database, accountId: number, now: number): Promise<Topology> {
  const groups = [55, ...Array.from({ length: GROUPS - 1 }, (_, i) => 101 + i)];
  const dids = Array.from({ length: DIDS }, (_, i) => `80${String(accountId).padStart(5, '0')}${String(i).padStart(3, '0')}`);
  return db.transaction(async (tx) => {
    for (const g of groups) {
      await tx.run('INSERT INTO groups (account_id, group_id, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, group_id) DO NOTHING', [
        accountId,
        g,
        `Seed group ${g}`,
        now,
      ]);
    }
    for (const d of dids) {
      await tx.run('INSERT INTO dids (did, account_id, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (did) DO NOTHING', [
        d,
        accountId,
        `Seed line ${d}`,
        now,
      ]);
    }
    let role = await tx.get<{ id: number }>("SELECT id FROM roles WHERE account_id = $1 AND name = 'Seed agent' AND is_deleted = 0", [accountId]);
    if (!role) {
      await tx.run("INSERT INTO roles (account_id, name, permissions, can_see, status, create_date) VALUES ($1, 'Seed agent', $2, 1, 1, $3)", [
        accountId,
        JSON.stringify(['agent.view', 'analysis.view']),
        now,
      ]);
      role = await tx.get<{ id: number }>("SELECT id FROM roles WHERE account_id = $1 AND name = 'Seed agent' AND is_deleted = 0", [accountId]);
    }
    const agentIds: number[] = [];
    for (let n = 0; n < AGENTS; n++) {
      const email = `seed-agent-${accountId}-${n}@seed.invalid`;
      let row = await tx.get<{ id: number }>('SELECT id FROM agents WHERE email = $1 AND is_deleted = 0', [email]);
      if (!row) {
        const phone = `9190${String(accountId).padStart(4, '0')}${String(n).padStart(4, '0')}`;
        await tx.run(
          "INSERT INTO agents (account_id, name, email, phone, call_pass, dest_type, dest_value, role_id, create_date, create_by_type) VALUES ($1, $2, $3, $4, '12345678', 'MOBILE', $4, $5, $6, 'seed')",
          [accountId, `Seed Agent ${n}`, email, phone, Number(role!.id), now],
        );
        row = await tx.get<{ id: number }>('SELECT id FROM agents WHERE email = $1 AND is_deleted = 0', [email]);
      }
      agentIds.push(Number(row!.id));
    }
    const agentsByGroup: number[][] = groups.map(() => []);
    agentIds.forEach((id, n) => {
      for (const gi of [n % GROUPS, (n * 7 + 3) % GROUPS]) {
        if (!agentsByGroup[gi]!.includes(id)) agentsByGroup[gi]!.push(id);
      }
    });
    for (const [gi, ids] of agentsByGroup.entries()) {
      for (const id of ids) {
        await tx.run("INSERT INTO agent_groups (account_id, agent_id, group_id, receive_call) VALUES ($1, $2, $3, 'Y') ON CONFLICT DO NOTHING", [
          accountId,
          id,
          groups[gi]!,
        ]);
      }
    }
    const campaigns = Array.from({ length: CAMPAIGNS }, (_, i) => `camp-${String(i + 1).padStart(2, '0')}`);
    return { groups, dids, agentsByGroup, campaigns };
  });
}

/** The account to seed: --account USERNAME, else the demo tenant (created when missing). */
async function targetAccount(db: Database, config: Config, username: string | undefined): Promise<number | null> {
  const name = username ?? demoCredentials().username;
  const row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [name]);
  if (row) return Number(row.id);
  if (username !== undefined && username !== demoCredentials().username) return null;
  const accounts = new AccountService({ db, clock: systemClock });
  const created = await accounts.bootstrap(config.adminUsername, config.adminPassword);
  if (created?.generatedPassword)
    process.stdout.write(`Operator account created: username "${created.username}", password "${created.generatedPassword}" (not shown again)\n`);
  return accounts.create({ ...demoCredentials(), name: 'Demo call centre' });
}

function progressLine(p: LoadProgress, total: number): string {
  const width = 30;
  const filled = Math.round((p.done / total) * width);
  const rate = p.elapsedMs > 0 ? Math.round((p.done / p.elapsedMs) * 1000) : 0;
  const eta = rate > 0 ? Math.round((total - p.done) / rate) : 0;
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} calls  ${rate.toLocaleString('en-US')} calls/s  eta ${eta}s `;
}

/**
 * Seeds `total` calls over the `days` days before today (UTC) into an account;
 * returns what was loaded. Shared by the CLI and bench/analysis.ts.
 */
export async function seedCalls(db: Database, accountId: number, total: number, days: number, onProgress?: (p: LoadProgress) => void): Promise<LoadProgress> {
  const now = Math.floor(systemClock.now() / 1000);
  const topology = await seedTopology(db, accountId, now);
  const today = Math.floor(now / 86400) * 86400;
  const runId = `s${Date.now().toString(36)}`;
  const records = generateHistory({ accountId, total, startDay: today - days * 86400, days, topology, runId, seed: Date.now() % 2 ** 31 });
  // The agents' state history goes with the calls (the report roll-ups' agent time), batch by batch.
  const agentHistory = new AgentHistoryBuilder();
  const agentTime = new ReportAgentTimeSink();
  const loaded = await bulkLoadCalls(db, accountId, records, {
    batchSize: 20_000,
    onProgress,
    alsoSink: new ReportCallSink(),
    onBatch: (tx, batch) => agentTime.apply(tx, accountId, agentHistory.add(batch)),
  });
  await db.transaction((tx) => agentTime.apply(tx, accountId, agentHistory.finish()));
  return loaded;
}

/** `callcenter seed --calls N [--days D] [--account USERNAME]`. */
export async function seedCallsCommand(argv: string[], config: Config): Promise<number> {
  const { options } = parseArgs(argv);
  const total = Number(options.calls);
  const days = options.days === undefined ? 30 : Number(options.days);
  if (!Number.isSafeInteger(total) || total < 1 || total > 200_000_000 || !Number.isSafeInteger(days) || days < 1 || days > 3660) {
    console.error('usage: callcenter seed --calls N [--days D (default 30)] [--account USERNAME]');
    return 2;
  }
  const db = openDatabase(config);
  try {
    await migrate(db);
    const accountId = await targetAccount(db, config, options.account);
    if (accountId === null) {
      console.error(`no account named ${JSON.stringify(options.account)}`);
      return 1;
    }
    const tty = process.stderr.isTTY;
    let lastLine = 0;
    const result = await seedCalls(db, accountId, total, days, (p) => {
      if (tty) process.stderr.write(progressLine(p, total));
      else if (p.done === total || p.done - lastLine >= total / 10) {
        process.stderr.write(`${progressLine(p, total).slice(1)}\n`);
        lastLine = p.done;
      }
    });
    if (tty) process.stderr.write('\n');
    const seconds = result.elapsedMs / 1000;
    console.log(
      JSON.stringify({
        accountId: String(accountId),
        calls: result.done,
        hits: result.hits,
        days,
        seconds: +seconds.toFixed(1),
        perSecond: Math.round(result.done / Math.max(seconds, 0.001)),
      }),
    );
    return 0;
  } finally {
    await db.close();
  }
}

/** `callcenter seed --analysis-rebuild [--account USERNAME]`: re-keys the roll-ups in the account's current zone. */
export async function rebuildAnalysisCommand(argv: string[], config: Config): Promise<number> {
  const { options } = parseArgs(argv);
  const db = openDatabase(config);
  try {
    await migrate(db);
    const accountId = await targetAccount(db, config, options.account);
    if (accountId === null) {
      console.error(`no account named ${JSON.stringify(options.account)}`);
      return 1;
    }
    const started = Date.now();
    const calls = await rebuildRollups(db, accountId, (done) => process.stderr.write(`\r${done.toLocaleString('en-US')} calls rolled up`));
    process.stderr.write('\n');
    console.log(JSON.stringify({ accountId: String(accountId), calls, seconds: +((Date.now() - started) / 1000).toFixed(1) }));
    return 0;
  } finally {
    await db.close();
  }
}
