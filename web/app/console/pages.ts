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
    id: 'people',
    title: 'People',
    allowed: (can) => can('agent.view') || can('role.view') || can('number.manage'),
    load: () => import('./people.js').then((m) => m.PeoplePage),
  },
];
