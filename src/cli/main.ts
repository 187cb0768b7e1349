import { loadConfig, ConfigError } from '../config/config.js';
import { commands } from './commands.js';

const usage = `callcenter <command>

  serve                                 start the API server (default)
  migrate                               apply database migrations and exit
  account create <username> <password> [--name N] [--timezone TZ]
                                        create a tenant account
  token create <username> [--kind api|switch] [--name N]
                                        create an API or switch token for an account
  seed --demo                           create the demo tenant (idempotent; see docs/simulator.md)
  seed --contacts N [--account USERNAME]
                                        bulk-load N contacts (default account: the demo tenant)
  seed --calls N [--days D] [--account USERNAME]
                                        bulk call history over D days (default 30), with a progress bar
  seed --analysis-rebuild [--account USERNAME]
                                        re-key the analysis roll-ups (after a time-zone change)
  retention run                         run the retention job once now (docs/privacy.md)
  simulate [--rate N] [--speed X] [--duration S] [--url U --user-id I --token T]
                                        drive simulated call traffic (docs/simulator.md)
  simulate --outbound [--human P] [--machine P] [--busy P] [--talk S] [--wrapup S]
                                        answer campaign dials as the switch (docs/simulator.md)
  bench [--only core,hot,ingest,analysis,reports,soak] [--db sqlite|postgres|both] [--quick]
                                        run the benchmark suite, write docs/benchmarks.md
                                        (SOAK_SECONDS=N adds a soak; see docs/benchmarks.md)
  connect asterisk --ami HOST:PORT --ami-user U --ami-secret S [--api URL --user-id I --token T]
                                        the Asterisk AMI connector (docs/asterisk.md)
  agi [--listen HOST:PORT] [--timeout-ms 500] --api URL --user-id ID --token T
                                        FastAGI server: route/decide for the dialplan (docs/asterisk.md)
  import queue-log FILE [--follow] --api URL --user-id ID --token T [--queue-map …] [--agent-map …]
                                        replay an Asterisk queue_log as events (docs/asterisk.md)
  import contacts FILE --list CLID --api URL (--user-id I --token T | --ssid S)
                                        stream a CSV of numbers into a contact list, with a progress bar (docs/campaigns.md)
  connect freeswitch --esl HOST:PORT --esl-password P [--api URL --user-id I --token T]
                                        the FreeSWITCH event-socket connector (docs/freeswitch.md)

Environment (the README's configuration table says what each does): HOST, PORT, DATA_DIR, DATABASE_URL,
PG_POOL_SIZE, LOG_LEVEL, CALLCENTER_ADMIN_USERNAME, CALLCENTER_ADMIN_PASSWORD, CALLCENTER_DEMO,
SESSION_TTL_SECONDS, RATE_LIMIT_PER_MINUTE, AUTH_FAILURES_PER_MINUTE, LOGIN_USER_FAILURES,
LOGIN_IP_FAILURES, LOGIN_WINDOW_SECONDS, LOGIN_BACKOFF_START_SECONDS, LOGIN_BACKOFF_MAX_SECONDS,
LOGIN_CONCURRENCY, RETENTION_INTERVAL_MINUTES, RETENTION_BATCH, RETENTION_PAUSE_MS, WEBHOOK_DELIVERY,
WEBHOOK_ALLOW_PRIVATE, CAMPAIGN_DIALER, ANALYSIS_CACHE_MB, ANALYSIS_HOUR_GRIDS_MINUTES, REPORT_CACHE_MB;
for import contacts CALLCENTER_API_URL, CALLCENTER_USER_ID, CALLCENTER_TOKEN, CALLCENTER_SSID.`;

async function main(argv: string[]): Promise<number> {
  const [name = 'serve', ...rest] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    console.log(usage);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    console.error(`unknown command ${JSON.stringify(name)}\n\n${usage}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  return command(rest, config);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  },
);
