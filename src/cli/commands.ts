import { AuthService } from '../auth/auth.service.js';
import { ALL_PERMISSIONS } from '../auth/permissions.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import type { Database } from '../db/types.js';
import { AccountService } from '../modules/account/account.service.js';
import { startServer } from '../server.js';
import { parseArgs } from './args.js';
import { rebuildAnalysisCommand, seedCallsCommand } from './seed-calls.js';
import { seedContactsCommand } from './seed-contacts.js';
import { seedDemoCommand } from './seed-demo.js';
import { simulateCommand } from './simulate.js';
import { retentionCommand } from './retention.js';
import { bench } from './bench.js';
import { ASTERISK_USAGE, connectAsteriskCommand } from '../connectors/asterisk/command.js';
import { agiCommand } from '../connectors/agi/agi-command.js';
import { importCommand } from '../connectors/queue-log/import-command.js';
import { IMPORT_CONTACTS_USAGE, importContactsCommand } from './import-contacts.js';
import { FREESWITCH_USAGE, connectFreeswitchCommand } from '../connectors/freeswitch/command.js';

/** A command returns its exit code, or -1 when it keeps running (serve). */
import type { Command } from './command.js';

export type { Command };

async function withDatabase(config: Config, fn: (db: Database) => Promise<number>): Promise<number> {
  const db = openDatabase(config);
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

export const commands: Record<string, Command> = {
  async serve(_argv, config) {
    await startServer(config);
    return -1;
  },

  async migrate(_argv, config) {
    const db = openDatabase(config);
    try {
      const applied = await migrate(db);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return 0;
    } finally {
      await db.close();
    }
  },

  async account(argv, config) {
    const { positional, options } = parseArgs(argv);
    const [sub, username, password] = positional;
    if (sub !== 'create' || !username || !password) {
      console.error('usage: callcenter account create <username> <password> [--name N] [--timezone TZ]');
      return 2;
    }
    return withDatabase(config, async (db) => {
      const id = await new AccountService({ db, clock: systemClock }).create({ username, password, name: options.name, timezone: options.timezone });
      console.log(JSON.stringify({ userId: String(id), username }));
      return 0;
    });
  },

  async token(argv, config) {
    const { positional, options } = parseArgs(argv);
    const [sub, username] = positional;
    const kind = options.kind ?? 'api';
    if (sub !== 'create' || !username || (kind !== 'api' && kind !== 'switch')) {
      console.error('usage: callcenter token create <username> [--kind api|switch] [--name N]');
      return 2;
    }
    return withDatabase(config, async (db) => {
      const row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [username]);
      if (!row) {
        console.error(`no account named ${JSON.stringify(username)}`);
        return 1;
      }
      const auth = new AuthService({ db, clock: systemClock, sessionTtlMs: config.sessionTtlSeconds * 1000 });
      const created = await auth.createToken(
        {
          kind: 'client',
          accountId: row.id,
          userId: String(row.id),
          agentId: null,
          isOperator: false,
          permissions: ALL_PERMISSIONS,
          canSee: true,
          credential: { type: 'token', hash: '' },
        },
        kind,
        options.name ?? 'cli',
      );
      console.log(JSON.stringify(created));
      return 0;
    });
  },

  async seed(argv, config) {
    const { options } = parseArgs(argv);
    if (options.demo !== undefined) return seedDemoCommand(argv, config);
    if (options.contacts !== undefined) return seedContactsCommand(argv, config);
    if (options.calls !== undefined) return seedCallsCommand(argv, config);
    if (options['analysis-rebuild'] !== undefined) return rebuildAnalysisCommand(argv, config);
    console.error(
      'usage: callcenter seed --demo | --contacts N [--account USERNAME] | --calls N [--days D] [--account USERNAME] | --analysis-rebuild [--account USERNAME]',
    );
    return 2;
  },

  simulate: simulateCommand,
  retention: retentionCommand,
  bench,

  /** `connect asterisk|freeswitch`: a switch connector, its own process speaking only the public API (docs/asterisk.md, docs/freeswitch.md). */
  async connect(argv) {
    const { positional, options } = parseArgs(argv);
    if (positional[0] === 'asterisk') return connectAsteriskCommand(options);
    if (positional[0] === 'freeswitch') return connectFreeswitchCommand(options);
    console.error(`${ASTERISK_USAGE}\n${FREESWITCH_USAGE}`);
    return 2;
  },

  async agi(argv) {
    return agiCommand(parseArgs(argv).options);
  },

  /** `import queue-log FILE` (connectors/queue-log) or `import contacts FILE --list CLID` (import-contacts.ts): both through the public API. */
  async import(argv) {
    const { positional, options } = parseArgs(argv);
    if (positional[0] === 'contacts') return importContactsCommand(positional.slice(1), options);
    if (positional[0] !== 'queue-log') console.error(IMPORT_CONTACTS_USAGE);
    return importCommand(positional, options);
  },
};
