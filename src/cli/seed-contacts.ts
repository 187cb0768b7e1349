import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { dialectOf } from '../db/dialect.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import type { Database } from '../db/types.js';
import { demoCredentials } from '../demo/seed.js';
import { AccountService } from '../modules/account/account.service.js';
import { ContactService } from '../modules/directory/contact.service.js';
import { parseArgs } from './args.js';

const FIRST = ['Asha', 'Ravi', 'Maria', 'John', 'Li', 'Fatima', 'Omar', 'Sara', 'Ken', 'Nina', 'Arjun', 'Mei', 'Tom', 'Ana', 'Ivan', 'Zoe'];
const LAST = ['Rao', 'Smith', 'Garcia', 'Chen', 'Khan', 'Silva', 'Novak', 'Berg', 'Sato', 'Okafor', 'Iyer', 'Lopez', 'Weber', 'Costa', 'Ali', 'Kim'];

/** The i-th seeded number: 12 digits, 91 + 10 digits from 7000000000 on (stable, so seeding again adds nothing). */
export function seededContact(i: number): string {
  return `91${7_000_000_000 + i}`;
}

export interface SeedProgress {
  done: number;
  added: number;
  total: number;
  elapsedMs: number;
}

/**
 * Loads `total` synthetic contacts into the account: 50,000 per transaction,
 * `DialectOps.bulkInsertRows` rows per multi-row INSERT (PostgreSQL 1000,
 * SQLite 500). Numbers already there are kept, so the command is idempotent.
 */
export async function seedContacts(
  db: Database,
  accountId: number,
  total: number,
  onProgress?: (p: SeedProgress) => void,
  accounts = new AccountService({ db, clock: systemClock }),
): Promise<{ added: number; elapsedMs: number }> {
  const contacts = new ContactService({ db, clock: systemClock, accounts });
  const started = Date.now();
  const chunk = 50_000;
  let added = 0;
  for (let from = 0; from < total; from += chunk) {
    const rows = [];
    for (let i = from; i < Math.min(total, from + chunk); i++) {
      rows.push({ contact: seededContact(i), name: `${FIRST[i % 16]} ${LAST[Math.floor(i / 16) % 16]}`, email: `contact${i}@example.com` });
    }
    added += await contacts.bulkInsert(accountId, rows, dialectOf(db).bulkInsertRows);
    onProgress?.({ done: Math.min(total, from + chunk), added, total, elapsedMs: Date.now() - started });
  }
  return { added, elapsedMs: Date.now() - started };
}

/** One line, redrawn in place: bar, count, rate. */
export function progressLine(p: SeedProgress): string {
  const width = 30;
  const filled = Math.round((p.done / p.total) * width);
  const rate = p.elapsedMs > 0 ? Math.round((p.done / p.elapsedMs) * 1000) : 0;
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')} contacts  ${rate.toLocaleString('en-US')}/s`;
}

/** The account to seed: --account USERNAME, else the demo tenant (created when missing). */
async function targetAccount(db: Database, config: Config, username: string | undefined, accounts: AccountService): Promise<number | null> {
  const name = username ?? demoCredentials().username;
  const find = async () => (await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [name]))?.id;
  const id = await find();
  if (id !== undefined) return Number(id);
  if (username !== undefined && username !== demoCredentials().username) return null;
  // On an empty database the operator account comes first, exactly as a server start would create it.
  const created = await accounts.bootstrap(config.adminUsername, config.adminPassword);
  if (created?.generatedPassword) {
    process.stdout.write(`Operator account created: username "${created.username}", password "${created.generatedPassword}" (not shown again)\n`);
  }
  return accounts.create({ ...demoCredentials(), name: 'Demo call centre' });
}

/** `callcenter seed --contacts N [--account USERNAME]`. */
export async function seedContactsCommand(argv: string[], config: Config): Promise<number> {
  const { options } = parseArgs(argv);
  const total = Number(options.contacts);
  if (!Number.isSafeInteger(total) || total < 1 || total > 100_000_000) {
    console.error('usage: callcenter seed --contacts N [--account USERNAME]   (N from 1 to 100,000,000)');
    return 2;
  }
  const db = openDatabase(config);
  try {
    await migrate(db);
    const accounts = new AccountService({ db, clock: systemClock });
    const accountId = await targetAccount(db, config, options.account, accounts);
    if (accountId === null) {
      console.error(`no account named ${JSON.stringify(options.account)}`);
      return 1;
    }
    const tty = process.stderr.isTTY;
    let lastDraw = 0;
    const { added, elapsedMs } = await seedContacts(
      db,
      accountId,
      total,
      (p) => {
        // On a terminal the line is redrawn; in a log, one line every ~10%.
        if (tty) process.stderr.write(progressLine(p));
        else if (p.done === p.total || p.done - lastDraw >= p.total / 10) {
          process.stderr.write(`${progressLine(p).slice(1)}\n`);
          lastDraw = p.done;
        }
      },
      accounts,
    );
    if (tty) process.stderr.write('\n');
    const rate = Math.round((total / Math.max(elapsedMs, 1)) * 1000);
    console.log(JSON.stringify({ accountId: String(accountId), requested: total, added, seconds: +(elapsedMs / 1000).toFixed(1), perSecond: rate }));
    return 0;
  } finally {
    await db.close();
  }
}
