/**
 * The permissions of PRODUCT.md §4 in its order, each with what it allows in words
 * (test/browser/console.test.ts checks the list against src/auth/permissions.ts).
 */
export const PERMISSION_TEXT: Array<[string, string]> = [
  ['agent.view', 'See agents and groups'],
  ['agent.manage', 'Create, change and delete agents'],
  ['agent.live', 'See agents live (wallboard)'],
  ['group.manage', 'Create, change and delete groups'],
  ['role.view', 'See roles'],
  ['role.manage', 'Create, change and delete roles'],
  ['directory.view', 'See the directory'],
  ['directory.manage', 'Change the directory'],
  ['dnc.manage', 'Change the do-not-call list'],
  ['blacklist.manage', 'Change the blacklist'],
  ['sticky.manage', 'Set sticky agents'],
  ['number.manage', 'Manage the account’s numbers (DIDs)'],
  ['analysis.view', 'Read reports and call records'],
  ['queue.view', 'See the queues'],
  ['queue.takeover', 'Take over a waiting call'],
  ['call.originate', 'Place calls (click-to-call)'],
  ['webhook.manage', 'Manage webhooks'],
  ['audit.view', 'Read the audit trail'],
  ['privacy.manage', 'Export and erase personal data'],
  ['campaign.manage', 'Manage campaigns and contact lists'],
  ['campaign.view', 'See campaigns and contact lists'],
];
