/** The permission set of PRODUCT.md §4. A role holds a subset; a client holds all. */
export const PERMISSIONS = [
  'agent.view',
  'agent.manage',
  'agent.live',
  'group.manage',
  'role.view',
  'role.manage',
  'directory.view',
  'directory.manage',
  'dnc.manage',
  'blacklist.manage',
  'sticky.manage',
  'number.manage',
  'analysis.view',
  'queue.view',
  'queue.takeover',
  'call.originate',
  'webhook.manage',
  'audit.view',
  'privacy.manage',
  'campaign.manage',
  'campaign.view',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const known = new Set<string>(PERMISSIONS);
export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && known.has(value);
}

export const ALL_PERMISSIONS: ReadonlySet<Permission> = new Set(PERMISSIONS);
