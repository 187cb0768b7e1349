import type { Migration } from '../migrate.js';

/**
 * Indexes for the administration queries: role/list counts agents per role
 * (agCount), re-parenting and deletion find an agent's children.
 */
export const migration: Migration = {
  id: '010_admin_indexes',
  up() {
    return `
CREATE INDEX agents_role ON agents (account_id, role_id) WHERE is_deleted = 0;
CREATE INDEX agents_parent ON agents (account_id, parent_id);
CREATE INDEX agent_groups_agent ON agent_groups (account_id, agent_id);
`;
  },
};
