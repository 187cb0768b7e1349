/**
 * What a FastAGI request asks, read from the `agi_*` header lines Asterisk
 * sends before the blank line (AGI(agi://host:4573/route[,groupId])), and the
 * channel variables the answer sets (PRODUCT.md §10).
 */

/** The `agi_*` headers of one request: `agi_callerid: 919800000001` → callerid → 919800000001. */
export type AgiHeaders = Map<string, string>;

/** Reads one header line (`agi_name: value`); undefined for anything else. */
export function headerLine(line: string): [string, string] | undefined {
  const m = /^agi_([a-z0-9_]+):\s?(.*)$/i.exec(line);
  return m ? [m[1]!.toLowerCase(), m[2]!.trim()] : undefined;
}

/** Asterisk writes `unknown` (or nothing) for a caller id or DNID it does not have. */
function present(v: string | undefined): string | undefined {
  return v === undefined || v === '' || v.toLowerCase() === 'unknown' ? undefined : v;
}

export interface RouteRequest {
  /** The script the URL names: `route` for agi://host:4573/route. */
  script: string;
  caller: string | undefined;
  /** `agi_dnid`, else `agi_extension`. */
  did: string | undefined;
  /** The first AGI argument, when it is a group id. */
  groupId: number | undefined;
}

export function routeRequest(h: AgiHeaders): RouteRequest {
  const script = (h.get('network_script') ?? '').replace(/^\/+/, '').split(/[/?]/)[0] ?? '';
  const arg = h.get('arg_1')?.trim();
  const group = arg !== undefined && /^[0-9]{1,15}$/.test(arg) ? Number(arg) : undefined;
  return {
    script,
    caller: present(h.get('callerid')),
    did: present(h.get('dnid')) ?? present(h.get('extension')),
    groupId: group,
  };
}

/** route/decide's answer, as the AGI server needs it. */
export interface Decision {
  blocked: boolean;
  reason?: string;
  dnc: number;
  stickyAgentId?: number;
}

/** The variables set when the service answered: CC_STICKY_EXTEN is the sticky agent's extension (or phone), empty when none. */
export function decisionVariables(d: Decision, stickyExten: string | undefined): Array<[string, string]> {
  return [
    ['CC_BLOCKED', d.blocked ? '1' : '0'],
    ['CC_BLOCK_REASON', d.blocked ? (d.reason ?? '') : ''],
    ['CC_DNC', String(d.dnc)],
    ['CC_STICKY_AGENT', d.stickyAgentId !== undefined ? String(d.stickyAgentId) : ''],
    ['CC_STICKY_EXTEN', d.stickyAgentId !== undefined ? (stickyExten ?? '') : ''],
    ['CC_ERROR', '0'],
  ];
}

/** Fail open: the service did not answer in time (or refused the request), so the call is routed as if not blocked. */
export const FAIL_OPEN: Array<[string, string]> = [
  ['CC_BLOCKED', '0'],
  ['CC_BLOCK_REASON', ''],
  ['CC_DNC', '0'],
  ['CC_STICKY_AGENT', ''],
  ['CC_STICKY_EXTEN', ''],
  ['CC_ERROR', '1'],
];

/** `SET VARIABLE NAME "value"`: quoted, with backslashes and quotes escaped as Asterisk's argument parser reads them. */
export function setVariable(name: string, value: string): string {
  return `SET VARIABLE ${name} "${value.replace(/[\\"]/g, (c) => `\\${c}`)}"\n`;
}
