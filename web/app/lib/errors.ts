import { ApiError } from '../../src/api.js';

/**
 * The API's error codes as sentences for people, and the form field each one concerns. Codes from
 * 1501 on mean different things per module (src/errors/catalogue.ts), so they are read per module.
 */
const GENERAL: Record<number, string> = {
  0: 'The server cannot be reached. Check the connection and try again.',
  1000: 'A value is missing or not accepted.',
  1001: 'A value has the wrong type or is out of range.',
  1005: 'This is not a phone number: it needs 6 to 15 digits.',
  1006: 'There is no such group.',
  1012: 'Nothing was found.',
  1014: 'Your session ended. Please sign in again.',
  1015: 'Your role does not allow this.',
  1043: 'The agent is not logged in.',
  429: 'Too many attempts. Wait a moment and try again.',
};

type Module = 'agent' | 'directory' | 'general' | 'group' | 'role' | 'did';

/** Module codes: [sentence, field]. */
const MODULE: Record<Module, Record<number, [string, string?]>> = {
  general: {},
  agent: {
    1503: ['There is no such role (or one you may not hand out).', 'role'],
    1504: ['This parent is not an agent you can use.', 'parent'],
    1505: ['One of the groups does not exist.', 'group'],
    1509: ['There is no such agent (or one you may not see).', 'agentId'],
    1510: ['The destination does not fit the destination type.', 'dest_value'],
    1512: ['This e-mail is already used by another agent or login.', 'email'],
    1514: ['This mobile number is not valid.', 'phone'],
    1515: ['This name is not valid.', 'name'],
    1516: ['This number is not one of the account’s DIDs (or not a valid DID).', 'did'],
    1519: ['The call password must be eight digits.', 'call_pass'],
    1508: ['The status must be active or inactive.', 'status'],
    1511: ['A working-time rule is not valid.', 'working'],
    1513: ['The destination type must be MOBILE or SIP.', 'dest_type'],
  },
  // group/* answers the agent module's codes, with its own meaning of 1505 (an id already used).
  group: {
    1505: ['This group id is already used in the account.', 'groupId'],
    1515: ['This name is not valid.', 'name'],
  },
  role: {
    1503: ['There is no such role, or a permission is not one the service knows.', 'permissions'],
    1508: ['The status must be active or inactive.', 'status'],
  },
  did: {
    1516: ['This is not a number of 3 to 15 digits, or another account already has it.', 'did'],
  },
  directory: {
    1501: ['The sticky agent could not be set.', 'agentId'],
    1505: ['This caller id is not one of the account’s DIDs.', 'cli'],
    1506: ['There is no such group.', 'groupid'],
    1507: ['This agent is not in that group.', 'agentId'],
    1508: ['The expiry must be -1 (permanent) or later.', 'expiry'],
  },
};

export interface FieldError {
  /** The field the error concerns, when one does. */
  field?: string;
  text: string;
}

/**
 * What to show for a failed request: a sentence, next to `field` when the code (or a validation
 * message naming one of `fields`) points at it.
 */
export function explain(err: unknown, module: Module = 'general', fields: string[] = []): FieldError {
  if (!(err instanceof ApiError)) return { text: (err as Error)?.message ?? String(err) };
  const own = MODULE[module][err.code];
  if (own) return { text: own[0], field: own[1] };
  const text = GENERAL[err.code] ?? err.message;
  // Schema validation names the field in its message ("email must …", "/email …").
  const named = fields.find((f) => new RegExp(`(^|[^A-Za-z_])${f}([^A-Za-z_]|$)`).test(err.message));
  if (named && (err.code === 1000 || err.code === 1001 || err.code === 1005)) return { field: named, text: `${text} (${err.message})` };
  return { text: err.code === 1000 || err.code === 1001 ? `${text} (${err.message})` : text };
}
