import net from 'node:net';

/**
 * The Asterisk side of a FastAGI session, byte for byte as res_agi speaks it:
 * the `agi_*` environment lines and a blank line, then every command read is
 * answered `200 result=1` until the server closes the connection (the
 * dialplan then continues). Used by test/integration/agi.test.ts and bench/agi.ts.
 */
export interface AgiCall {
  /** `route` for agi://host:4573/route. */
  script?: string;
  callerid?: string;
  dnid?: string;
  extension?: string;
  /** AGI(agi://host/route,55) → agi_arg_1: 55. */
  arg1?: string;
  /** Send the environment in pieces of this many bytes (a split TCP read). */
  chunk?: number;
  /** Answer each command with this instead of `200 result=1`. */
  answer?: (command: string) => string;
}

export interface AgiResult {
  variables: Record<string, string>;
  commands: string[];
}

export function agiEnvironment(c: AgiCall): string {
  const script = c.script ?? 'route';
  const lines = [
    'agi_network: yes',
    `agi_network_script: ${script}`,
    `agi_request: agi://127.0.0.1:4573/${script}`,
    'agi_channel: PJSIP/trunk-0000002a',
    'agi_language: en',
    'agi_type: PJSIP',
    'agi_uniqueid: 1732460400.42',
    'agi_version: 20.5.0',
    `agi_callerid: ${c.callerid ?? 'unknown'}`,
    'agi_calleridname: unknown',
    'agi_callingpres: 0',
    'agi_callingani2: 0',
    'agi_callington: 0',
    'agi_callingtns: 0',
    `agi_dnid: ${c.dnid ?? 'unknown'}`,
    'agi_rdnis: unknown',
    'agi_context: from-trunk',
    `agi_extension: ${c.extension ?? 's'}`,
    'agi_priority: 2',
    'agi_enhanced: 0.0',
    'agi_accountcode: ',
    'agi_threadid: 139901',
  ];
  if (c.arg1 !== undefined) lines.push(`agi_arg_1: ${c.arg1}`);
  return `${lines.join('\n')}\n\n`;
}

/** Runs one FastAGI request against `port` and collects the variables the server set. */
export function agiRequest(port: number, c: AgiCall, host = '127.0.0.1'): Promise<AgiResult> {
  return new Promise((resolve, reject) => {
    const out: AgiResult = { variables: {}, commands: [] };
    const socket = net.connect(port, host);
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    let buf = '';
    socket.on('connect', () => {
      const env = agiEnvironment(c);
      if (!c.chunk) socket.write(env);
      else for (let i = 0; i < env.length; i += c.chunk) socket.write(env.slice(i, i + c.chunk));
    });
    socket.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        out.commands.push(line);
        const m = /^SET VARIABLE (\S+) "((?:[^"\\]|\\.)*)"$/.exec(line);
        if (m) out.variables[m[1]!] = m[2]!.replace(/\\(.)/g, '$1');
        socket.write(`${c.answer ? c.answer(line) : '200 result=1'}\n`);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(out));
  });
}
