import { defineOperation } from '../../http/operation.js';
import { LiveBody, LiveResponse } from './live.schemas.js';
import type { LiveService } from './live.service.js';

export function liveOperations({ live }: { live: LiveService }) {
  return [
    defineOperation({
      module: 'Agent',
      name: 'live',
      summary: 'Live agent statistics (state, login, break, talk time today) and summary counters',
      permission: 'agent.live',
      errorModule: 'agent',
      body: LiveBody,
      response: LiveResponse,
      errors: [1000, 1006, 1014, 1015, 1047, 1502],
      async handler({ principal, body }) {
        return live.agentsLive(principal, body);
      },
    }),
  ];
}
