import { ConnectorRuntime, OptionError, connectorOptions, hostPort, runUntilSignal } from '../core/index.js';
import { AsteriskConnector } from './connector.js';

export const ASTERISK_USAGE = `usage: callcenter connect asterisk --ami HOST:PORT --ami-user U --ami-secret S
         [--api URL --user-id ID --token T] [--did-var VAR] [--takeover-context CTX] [--originate-context CTX]
         [--outbound-context CTX] [--campaign-context CTX]
         [--queue-map NAME=GROUPID,…] [--agent-map EXT=AGENTID,…] [--status-port PORT]
  (CALLCENTER_API_URL, CALLCENTER_USER_ID, CALLCENTER_TOKEN and CALLCENTER_AMI_SECRET stand in for the flags; see docs/asterisk.md)`;

/** `callcenter connect asterisk`: runs until SIGINT / SIGTERM. */
export async function connectAsteriskCommand(options: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let connector: AsteriskConnector;
  try {
    const common = connectorOptions(options, env);
    const ami = hostPort('ami', options.ami, 5038);
    const username = options['ami-user'];
    const secret = options['ami-secret'] ?? env.CALLCENTER_AMI_SECRET;
    if (!username) throw new OptionError('--ami-user is required');
    if (!secret) throw new OptionError('--ami-secret (or CALLCENTER_AMI_SECRET) is required');
    const rt = new ConnectorRuntime({ ...common, switchName: 'asterisk' });
    connector = new AsteriskConnector(rt, {
      ...ami,
      username,
      secret,
      didVar: options['did-var'] ?? null,
      takeoverContext: options['takeover-context'] ?? 'from-internal',
      originateContext: options['originate-context'] ?? 'from-internal',
      outboundContext: options['outbound-context'] ?? 'from-internal',
      campaignContext: options['campaign-context'] ?? 'cc-campaign',
    });
  } catch (err) {
    if (!(err instanceof OptionError)) throw err;
    console.error(`${err.message}\n${ASTERISK_USAGE}`);
    return 2;
  }
  return runUntilSignal(connector);
}
