import { createServer, type Server, type Socket } from 'node:net';

/**
 * A scripted FreeSWITCH event socket, byte for byte as mod_event_socket
 * writes it: `auth/request` on connect, `command/reply` to auth and event
 * subscriptions, `api/response` with a Content-Length body to `api`, and
 * events as `text/event-plain` whose body is the event serialised by
 * switch_event_serialize (URL-encoded values, a blank line at the end).
 */

/** FreeSWITCH's switch_url_encode leaves alphanumerics and `-_.!~*'()` alone. */
export function fsUrlEncode(value: string): string {
  return encodeURIComponent(value);
}

/** An event's text as switch_event_serialize writes it. */
export function serializeEvent(headers: [string, string][], body = ''): string {
  let text = headers.map(([k, v]) => `${k}: ${fsUrlEncode(v)}\n`).join('');
  if (body) text += `Content-Length: ${Buffer.byteLength(body)}\n\n${body}`;
  else text += '\n';
  return text;
}

/** The bytes mod_event_socket sends for one event. */
export function eventFrame(headers: [string, string][], body = ''): string {
  const text = serializeEvent(headers, body);
  return `Content-Length: ${Buffer.byteLength(text)}\nContent-Type: text/event-plain\n\n${text}`;
}

export function apiFrame(body: string): string {
  return `Content-Type: api/response\nContent-Length: ${Buffer.byteLength(body)}\n\n${body}`;
}

export function replyFrame(text: string): string {
  return `Content-Type: command/reply\nReply-Text: ${text}\n\n`;
}

export const DISCONNECT_NOTICE_BODY = 'Disconnected, goodbye.\nSee you at ClueCon! http://www.cluecon.com/\n';
export const disconnectFrame = (): string =>
  `Content-Type: text/disconnect-notice\nContent-Length: ${Buffer.byteLength(DISCONNECT_NOTICE_BODY)}\n\n${DISCONNECT_NOTICE_BODY}`;

/** The headers every FreeSWITCH event starts with. */
export function baseHeaders(eventName: string, tsMicros: number): [string, string][] {
  const d = new Date(Math.floor(tsMicros / 1000));
  return [
    ['Event-Name', eventName],
    ['Core-UUID', '6f1b8e52-3b0e-4a6f-9a43-5c2a1d7e9b10'],
    ['FreeSWITCH-Hostname', 'fs1.example.net'],
    ['FreeSWITCH-Switchname', 'fs1.example.net'],
    ['FreeSWITCH-IPv4', '10.0.0.5'],
    ['Event-Date-Local', d.toISOString().replace('T', ' ').slice(0, 19)],
    ['Event-Date-GMT', d.toUTCString()],
    ['Event-Date-Timestamp', String(tsMicros)],
    ['Event-Calling-File', 'mod_callcenter.c'],
    ['Event-Calling-Function', 'cc_send_event'],
    ['Event-Calling-Line-Number', '1180'],
    ['Event-Sequence', String(Math.floor(tsMicros % 100000))],
  ];
}

/** A mod_callcenter `CUSTOM callcenter::info` event. */
export function ccEvent(tsMicros: number, action: string, fields: Record<string, string>): string {
  const headers = baseHeaders('CUSTOM', tsMicros);
  headers.push(['Event-Subclass', 'callcenter::info']);
  headers.push(['CC-Action', action]);
  for (const [k, v] of Object.entries(fields)) headers.push([k, v]);
  return eventFrame(headers);
}

/** A CHANNEL_HOLD / CHANNEL_UNHOLD event of channel `uuid`, with channel variables. */
export function channelEvent(tsMicros: number, name: string, uuid: string, vars: Record<string, string> = {}): string {
  const headers = baseHeaders(name, tsMicros);
  headers.push(['Channel-State', 'CS_EXECUTE'], ['Unique-ID', uuid], ['Call-Direction', 'inbound']);
  for (const [k, v] of Object.entries(vars)) headers.push([`variable_${k}`, v]);
  return eventFrame(headers);
}

export interface FakeEslServer {
  port: number;
  /** Every command the client sent (`auth …` with the password, `api …`, `event plain …`). */
  commands: string[];
  /** Answers for `api <command>` (looked up on each call, so a test may change them). */
  api: Map<string, string>;
  /** Asked before `api` for commands a test cannot spell in advance (a campaign dial's callId); undefined: not answered here. */
  answerFor: ((command: string) => string | undefined) | null;
  /** Bytes sent (once) just before the answer to a command: events that happen while the client asks. */
  before: Map<string, string>;
  connections: number;
  /**
   * Writes raw bytes to the connected client, in pieces of `pieceBytes` when
   * given (a turn of the event loop between pieces). Answers to commands that
   * arrive meanwhile wait until the last piece is written: the real event
   * socket writes each frame whole, never one frame inside another.
   */
  send(bytes: string | Buffer, pieceBytes?: number): Promise<void>;
  /** Sends the disconnect notice and closes the client's socket. */
  disconnect(): void;
  /** Resolves once the client is authenticated and subscribed (the `n`th time). */
  subscribed(n?: number): Promise<void>;
  /** Resolves once `n` commands matching `prefix` were received (within `timeoutMs`, 10 s by default). */
  received(prefix: string, n?: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeEsl(password = 'ClueCon'): Promise<FakeEslServer> {
  let client: Socket | null = null;
  const waiters: (() => void)[] = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  const until = async (ok: () => boolean, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error('fake ESL: timed out waiting');
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
  };
  let subscriptions = 0;
  /** While a send in pieces is under way: answers held back for the client's socket. */
  let held: string[] | null = null;
  const write = (socket: Socket, bytes: string): void => {
    if (held && socket === client) held.push(bytes);
    else socket.write(bytes);
  };
  const fake: FakeEslServer = {
    port: 0,
    commands: [],
    api: new Map(),
    answerFor: null,
    before: new Map(),
    connections: 0,
    async send(bytes, pieceBytes) {
      const all = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
      const size = pieceBytes ?? all.length;
      held ??= [];
      try {
        for (let i = 0; i < all.length; i += size) {
          client?.write(all.subarray(i, i + size));
          await new Promise((r) => setImmediate(r));
        }
      } finally {
        const answers = held;
        held = null;
        for (const a of answers) client?.write(a);
      }
    },
    disconnect() {
      const c = client;
      client = null;
      c?.end(disconnectFrame());
    },
    subscribed: (n = 1) => until(() => subscriptions >= n),
    received: (prefix, n = 1, timeoutMs?: number) => until(() => fake.commands.filter((c) => c.startsWith(prefix)).length >= n, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        client?.destroy();
        server.close(() => resolve());
      }),
  };
  /** Sockets that subscribed to events: a command-only connection (a campaign dial's, a click-to-call's) never takes their place as `client`. */
  const listeners = new WeakSet<Socket>();
  const server: Server = createServer((socket) => {
    if (!client || client.destroyed || !listeners.has(client)) client = socket;
    fake.connections++;
    let buffer = '';
    socket.write('Content-Type: auth/request\n\n');
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const command = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 2);
        fake.commands.push(command);
        const early = fake.before.get(command);
        if (early !== undefined) {
          fake.before.delete(command);
          write(socket, early);
        }
        if (command.startsWith('auth ')) {
          if (command === `auth ${password}`) write(socket, replyFrame('+OK accepted'));
          else socket.end(replyFrame('-ERR invalid') + disconnectFrame());
        } else if (command.startsWith('event plain ')) {
          write(socket, replyFrame('+OK event listener enabled plain'));
          listeners.add(socket);
          client = socket;
          subscriptions++;
        } else if (command.startsWith('api ')) {
          const cmd = command.slice(4);
          const answer =
            fake.answerFor?.(cmd) ?? fake.api.get(cmd) ?? (cmd.startsWith('uuid_transfer') || cmd.startsWith('originate') ? '+OK\n' : '-ERR no reply\n');
          write(socket, apiFrame(answer));
        } else {
          write(socket, replyFrame('-ERR command not found'));
        }
        poke();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.port = (server.address() as { port: number }).port;
  return fake;
}
