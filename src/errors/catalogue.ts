/**
 * The error catalogue: every code of the spec with its message. Codes from
 * 1501 on mean different things in different modules, so they are looked up
 * per module; the general codes are shared by all.
 */
export const GENERAL = {
  1000: 'Invalid parameter',
  1001: 'Invalid data type or value',
  1002: 'User id not provided',
  1005: 'Invalid contact number',
  1006: 'Group id does not exist',
  1010: 'Database connection error',
  1012: 'No data found',
  1014: 'Invalid token',
  1015: 'Permission denied',
  1043: 'Agent is not logged in',
  1047: 'Invalid request',
} as const;

export const AGENT = {
  1501: 'Data already in processing',
  1502: 'Invalid filter value',
  1503: 'Invalid role id',
  1504: 'Invalid parent',
  1505: 'Invalid group data',
  1506: 'Agent id and parent cannot be the same',
  1507: 'Invalid agent id',
  1508: 'Invalid status value',
  1509: 'Invalid agent id',
  1510: 'Invalid destination',
  1511: 'Working time format invalid',
  1512: 'E-mail already exists',
  1513: 'Invalid type',
  1514: 'Invalid mobile number',
  1515: 'Invalid name',
  1516: 'Invalid DID number',
  1517: 'Agent id and login id must be the same',
  1518: 'Data could not be updated',
  1519: 'Call password must be an integer of eight digits',
  1520: 'Only a single field may be updated',
  1521: 'Only valid fields may be provided',
  1522: 'Insert failed; retry',
  1523: 'Agent information already added',
  1524: 'Invalid action',
  1525: 'Invalid target agent id',
  1526: 'Invalid id',
  1527: 'Invalid type',
  1528: 'Invalid favorite data',
  1529: 'Invalid domain',
  1530: 'Invalid agent timing',
} as const;

export const DIRECTORY = {
  1501: 'Sticky agent error',
  1502: 'Type not valid',
  1503: 'Account manager error',
  1504: 'Failed to create directory entry',
  1505: 'CLI does not exist',
  1506: 'Group id does not exist',
  1507: 'Agent does not exist in the given group',
  1508: 'Expiry must be >= -1',
  1509: 'Expiry must be an integer',
  1510: 'DNC error',
} as const;

export const QUEUE = {
  1501: 'Data already in processing; a similar request is running, retry later',
  1502: 'Invalid filter value',
} as const;

export const ANALYSIS = {
  1501: 'Connection issue to the backend',
  1586: 'No data for the given parameters',
} as const;

export const CATALOGUE = { general: GENERAL, agent: AGENT, directory: DIRECTORY, queue: QUEUE, analysis: ANALYSIS } as const;
export type CatalogueModule = keyof typeof CATALOGUE;

type GeneralCode = keyof typeof GENERAL;

/**
 * An application error: answered with HTTP 200 (as the vendor does) unless
 * `httpStatus` says otherwise, in the error envelope.
 */
export class AppError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus = 200,
    /** Seconds until a retry may succeed: sent as the `Retry-After` header (429). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** A general-code error; `detail` is appended to the catalogue message. */
export function fail(code: GeneralCode, detail?: string): AppError {
  return new AppError(code, detail ? `${GENERAL[code]}: ${detail}` : GENERAL[code]);
}

function moduleError<M extends Exclude<CatalogueModule, 'general'>>(module: M) {
  return (code: keyof (typeof CATALOGUE)[M] & number, detail?: string): AppError => {
    const base = (CATALOGUE[module] as Record<number, string>)[code]!;
    return new AppError(code, detail ? `${base}: ${detail}` : base);
  };
}

export const agentError = moduleError('agent');
export const directoryError = moduleError('directory');
export const queueError = moduleError('queue');
export const analysisError = moduleError('analysis');

/** The message of a code in a module's table, falling back to the general table. */
export function messageOf(code: number, module: CatalogueModule = 'general'): string {
  return (CATALOGUE[module] as Record<number, string>)[code] ?? (GENERAL as Record<number, string>)[code] ?? 'Error';
}
