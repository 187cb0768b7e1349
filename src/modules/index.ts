import type { Operation } from '../http/operation.js';
import { accountOperations } from './account/account.routes.js';
import { agentOperations } from './agent/agent.routes.js';
import { analysisOperations } from './analysis/analysis.routes.js';
import { authOperations } from './auth/auth.routes.js';
import { didOperations } from './did/did.routes.js';
import { directoryOperations } from './directory/directory.routes.js';
import { eventsOperations } from './events/events.routes.js';
import { groupOperations } from './group/group.routes.js';
import { liveOperations } from './live/live.routes.js';
import { queueOperations } from './queue/queue.routes.js';
import { roleOperations } from './role/role.routes.js';
import { routingOperations } from './routing/routing.routes.js';
import type { Services } from './services.js';

/** Every module's operations, given the process's services. A new module adds one line here. */
export function allOperations(s: Services): Operation[] {
  return [
    ...authOperations(s),
    ...accountOperations(s),
    ...analysisOperations(s),
    ...groupOperations(s),
    ...roleOperations(s),
    ...didOperations(s),
    ...agentOperations(s),
    ...directoryOperations(s),
    ...eventsOperations(s),
    ...liveOperations(s),
    ...queueOperations(s),
    ...routingOperations(s),
  ];
}
