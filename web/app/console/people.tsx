import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { can } from '../lib/session.js';
import { AgentsSection } from './people-agents.js';
import { DidsSection } from './people-dids.js';
import { GroupsSection } from './people-groups.js';
import { SectionNav, useSection } from './form.js';
import { RolesSection } from './people-roles.js';
import { loadGroups, loadRoles, type Group, type Role } from './people-data.js';

/**
 * People: agents, groups, roles and numbers, one section at a time (`#/people/<section>`), each
 * listed only with the permission of its list operation and its buttons with that of theirs.
 */
export function PeoplePage() {
  const sections = (
    [
      ['agents', 'Agents', can('agent.view')],
      ['groups', 'Groups', can('agent.view')],
      ['roles', 'Roles', can('role.view')],
      ['numbers', 'Numbers', can('number.manage')],
    ] as const
  ).filter(([, , ok]) => ok);
  const current = useSection(
    'people',
    sections.map(([id]) => id),
  );
  const [groups, setGroups] = useState<Group[]>([]);
  const [roles, setRoles] = useState<Role[] | null>(null);
  const [error, setError] = useState('');
  const reloadGroups = async () => {
    if (can('agent.view')) setGroups(await loadGroups().catch((err) => (setError(explain(err).text), [])));
  };
  const reloadRoles = async () => {
    if (can('role.view')) setRoles(await loadRoles().catch((err) => (setError(explain(err, 'role').text), [])));
  };
  useEffect(() => {
    void reloadGroups();
    void reloadRoles();
  }, []);
  return (
    <>
      <SectionNav page="people" label="People" current={current} sections={sections.map(([id, title]) => [id, title])} />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {current === 'agents' && <AgentsSection groups={groups} roles={roles} />}
      {current === 'groups' && <GroupsSection groups={groups} reload={reloadGroups} />}
      {current === 'roles' && roles && <RolesSection roles={roles} reload={reloadRoles} />}
      {current === 'numbers' && <DidsSection />}
    </>
  );
}
