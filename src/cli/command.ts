import type { Config } from '../config/config.js';

/** A `callcenter` sub-command: its arguments and the loaded config in, an exit code out. */
export type Command = (argv: string[], config: Config) => Promise<number>;
