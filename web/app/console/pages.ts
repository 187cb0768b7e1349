import type { ComponentType } from 'preact';

/**
 * The console's pages: each with the permissions that show it (any one of them) and its code,
 * loaded on first visit (a chunk of its own). A page added later (campaigns) goes here.
 */
export interface PageDef {
  id: string;
  title: string;
  allowed(can: (permission: string) => boolean): boolean;
  load(): Promise<ComponentType>;
}

export const PAGES: PageDef[] = [
  {
    id: 'today',
    title: 'Today',
    allowed: (can) => can('queue.view') || can('agent.live') || can('analysis.view'),
    load: () => import('./today.js').then((m) => m.TodayPage),
  },
  {
    id: 'reports',
    title: 'Reports',
    allowed: (can) => can('analysis.view'),
    load: () => import('./reports.js').then((m) => m.default),
  },
  {
    id: 'calls',
    title: 'Calls',
    allowed: (can) => can('analysis.view'),
    load: () => import('./calls.js').then((m) => m.default),
  },
  {
    id: 'people',
    title: 'People',
    allowed: (can) => can('agent.view') || can('role.view') || can('number.manage'),
    load: () => import('./people.js').then((m) => m.PeoplePage),
  },
  {
    id: 'directory',
    title: 'Directory',
    allowed: (can) => can('directory.view') || can('dnc.manage') || can('blacklist.manage') || can('sticky.manage'),
    load: () => import('./directory.js').then((m) => m.default),
  },
  {
    id: 'campaigns',
    title: 'Campaigns',
    allowed: (can) => can('campaign.view') || can('campaign.manage'),
    load: () => import('./campaigns.js').then((m) => m.default),
  },
  {
    id: 'integrations',
    title: 'Integrations',
    // Every principal may make and revoke its own tokens (auth/token needs no permission).
    allowed: () => true,
    load: () => import('./integrations.js').then((m) => m.IntegrationsPage),
  },
  {
    id: 'audit',
    title: 'Audit',
    allowed: (can) => can('audit.view'),
    load: () => import('./audit.js').then((m) => m.AuditPage),
  },
];
