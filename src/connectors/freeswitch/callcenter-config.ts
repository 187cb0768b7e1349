/**
 * Answers of `api callcenter_config …`: a pipe-separated table, a header line
 * naming the columns, one line per row, and a trailing `+OK`. An error is a
 * single `-ERR …` line. Columns are read by name, so a FreeSWITCH version
 * that adds a column (e.g. `external_calls_count`) changes nothing here.
 */

export type Row = Record<string, string>;

export class CallcenterConfigError extends Error {}

export function parseTable(text: string): Row[] {
  const lines = text
    .split('\n')
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
    .filter((l) => l.length > 0);
  if (lines.length > 0 && lines[0]!.startsWith('-ERR')) throw new CallcenterConfigError(lines[0]!);
  const end = lines.findIndex((l) => l === '+OK' || l.startsWith('+OK '));
  if (end < 0) throw new CallcenterConfigError(`callcenter_config answer without +OK: ${JSON.stringify(text.slice(0, 80))}`);
  const [header, ...rows] = lines.slice(0, end);
  if (header === undefined) return [];
  const columns = header.split('|');
  return rows.map((line) => {
    const cells = line.split('|');
    const row: Row = {};
    columns.forEach((c, i) => (row[c] = cells[i] ?? ''));
    return row;
  });
}

export interface SwitchAgent {
  /** `5001@default` */
  name: string;
  /** Available, Available (On Demand), On Break, Logged Out */
  status: string;
  /** Waiting, Receiving, In a queue call, Idle, Reserved */
  state: string;
}

export interface SwitchMember {
  queue: string;
  /** The member's entry id (`CC-Member-UUID`). */
  uuid: string;
  /** The caller's channel (`CC-Member-Session-UUID`): our callId. */
  sessionUuid: string;
  cidNumber: string;
  /** Waiting, Trying, Answered, Abandoned */
  state: string;
  servingAgent: string;
  joinedEpoch: number;
}

/** `callcenter_config agent list` */
export function parseAgentList(text: string): SwitchAgent[] {
  return parseTable(text)
    .filter((r) => r.name)
    .map((r) => ({ name: r.name!, status: r.status ?? '', state: r.state ?? '' }));
}

/** `callcenter_config tier list` → queue → agents of that queue. */
export function parseTierList(text: string): { queue: string; agent: string; state: string }[] {
  return parseTable(text)
    .filter((r) => r.queue && r.agent)
    .map((r) => ({ queue: r.queue!, agent: r.agent!, state: r.state ?? '' }));
}

/** `callcenter_config queue list` → the queue names. */
export function parseQueueList(text: string): string[] {
  return parseTable(text)
    .map((r) => r.name ?? '')
    .filter((n) => n.length > 0);
}

/** `callcenter_config queue list members <queue>` */
export function parseMemberList(text: string): SwitchMember[] {
  return parseTable(text)
    .filter((r) => r.session_uuid || r.uuid)
    .map((r) => ({
      queue: r.queue ?? '',
      uuid: r.uuid ?? '',
      sessionUuid: r.session_uuid || r.uuid || '',
      cidNumber: r.cid_number ?? '',
      state: r.state ?? '',
      servingAgent: r.serving_agent ?? '',
      joinedEpoch: Number(r.joined_epoch ?? '0') || 0,
    }));
}
