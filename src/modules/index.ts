import type { AppContext } from '../context.js';
import type { Operation } from '../http/operation.js';
import { accountOperations } from './account/account.routes.js';
import { analysisOperations } from './analysis/analysis.routes.js';
import { authOperations } from './auth/auth.routes.js';
import { agentOperations } from './agent/agent.routes.js';
import { didOperations } from './did/did.routes.js';
import { directoryOperations } from './directory/directory.routes.js';
import { groupOperations } from './group/group.routes.js';
import { roleOperations } from './role/role.routes.js';
import { eventsOperations } from './events/events.routes.js';
import { liveOperations } from './live/live.routes.js';
import { queueOperations } from './queue/queue.routes.js';
import { routingOperations } from './routing/routing.routes.js';

/** Every module's operations. A new module adds one line here. */
export function allOperations(ctx: AppContext): Operation[] {
  return [...authOperations(ctx), ...accountOperations(ctx), ...analysisOperations(ctx), ...groupOperations(ctx), ...roleOperations(ctx), ...didOperations(ctx), ...agentOperations(ctx), ...directoryOperations(ctx), ...eventsOperations(ctx), ...liveOperations(ctx), ...queueOperations(ctx), ...routingOperations(ctx)] as unknown as Operation[];
}
