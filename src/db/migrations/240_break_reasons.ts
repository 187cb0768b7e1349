import type { Migration } from '../migrate.js';

/**
 * The account's break reasons (account/updateSettings `breakReasons`): what
 * an agent may choose when going on break at the agent desk (Agent/desk,
 * Agent/setState). A JSON array of strings, the default list for every
 * account until it chooses its own.
 */
export const migration: Migration = {
  id: '240_break_reasons',
  up() {
    return `ALTER TABLE accounts ADD COLUMN break_reasons TEXT NOT NULL DEFAULT '["break","lunch","training","meeting"]';`;
  },
};
