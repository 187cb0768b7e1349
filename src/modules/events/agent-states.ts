import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { AgentStatesRepository } from './agent-states.repository.js';
import { LiveStateRepository } from './live-state.repository.js';

/**
 * The ingest moves an account's recent agent states to `agent_state_log`
 * when its sequence passes a multiple of this (migration 260): at most this
 * many events' rows wait in `agent_state_recent`, which the reads of past
 * events scan whole.
 */
export const MOVE_STATES_EVERY = 10_000;

/** Whether a batch that used sequence numbers first..last passes a multiple of MOVE_STATES_EVERY. */
export function movesStates(first: number, last: number): boolean {
  return Math.floor(last / MOVE_STATES_EVERY) !== Math.floor((first - 1) / MOVE_STATES_EVERY);
}

/**
 * For the retention purge: every recent state of the account into
 * agent_state_log, so one table holds them all. Under the account's sequence
 * lock, as the ingest's own move: the move is two statements, and on
 * PostgreSQL a batch committed between them would be deleted unmoved.
 */
export async function moveRecentAgentStates(tx: Queryable, accountId: number): Promise<void> {
  await new LiveStateRepository(tenant(tx, accountId)).lockSequence();
  await new AgentStatesRepository(tenant(tx, accountId)).moveRecent();
}
