import { OptionError, connectorOptions, hostPort, runUntilSignal } from '../core/index.js';
import { FreeswitchConnector } from './connector.js';

export const FREESWITCH_USAGE = `usage: callcenter connect freeswitch --esl HOST:PORT --esl-password P
         [--api URL --user-id ID --token T] [--takeover-context CTX] [--originate-context CTX]
         [--outbound-context CTX] [--campaign-context CTX]
         [--reconcile-s N] [--fix-reserved yes|no] [--multi-switch yes|no] [--queue-map NAME=GROUPID,…] [--agent-map EXT=AGENTID,…] [--status-port PORT]
  (CALLCENTER_API_URL, CALLCENTER_USER_ID, CALLCENTER_TOKEN and CALLCENTER_ESL_PASSWORD stand in for the flags; see docs/freeswitch.md)`;

/** The connector's options from the command line and environment; a bad one is an OptionError (exit 2). */
export function freeswitchOptions(options: Record<string, string>, env: NodeJS.ProcessEnv = process.env) {
  const common = connectorOptions(options, env);
  const esl = hostPort('esl', options.esl, 8021);
  const eslPassword = options['esl-password'] ?? env.CALLCENTER_ESL_PASSWORD;
  if (!eslPassword) throw new OptionError('--esl-password (or CALLCENTER_ESL_PASSWORD) is required: event_socket.conf.xml\'s "password"');
  const reconcileSecs = Number(options['reconcile-s'] ?? '60');
  if (!Number.isFinite(reconcileSecs) || reconcileSecs < 5 || reconcileSecs > 86_400)
    throw new OptionError('--reconcile-s must be a number of seconds from 5 to 86400');
  const yesNo = (flag: string, dflt: 'yes' | 'no') => {
    const v = options[flag] ?? dflt;
    if (!['yes', 'no', 'true', 'false'].includes(v)) throw new OptionError(`--${flag} must be yes or no`);
    return v === 'yes' || v === 'true';
  };
  const context = (flag: string, fallback = 'default') => {
    const v = options[flag] ?? fallback;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(v)) throw new OptionError(`--${flag} must be a dialplan context name`);
    return v;
  };
  return {
    ...common,
    switchName: 'freeswitch',
    esl,
    eslPassword,
    takeoverContext: context('takeover-context'),
    originateContext: context('originate-context'),
    outboundContext: context('outbound-context'),
    campaignContext: context('campaign-context', 'cc_campaign'),
    reconcileSecs,
    fixReserved: yesNo('fix-reserved', 'yes'),
    multiSwitch: yesNo('multi-switch', 'no'),
  };
}

/** `callcenter connect freeswitch`: runs until SIGINT / SIGTERM. */
export async function connectFreeswitchCommand(options: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let connector: FreeswitchConnector;
  try {
    connector = new FreeswitchConnector(freeswitchOptions(options, env));
  } catch (err) {
    if (!(err instanceof OptionError)) throw err;
    console.error(`${err.message}\n${FREESWITCH_USAGE}`);
    return 2;
  }
  return runUntilSignal(connector);
}
