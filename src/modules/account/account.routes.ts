import { fail } from '../../errors/catalogue.js';
import { defineOperation } from '../../http/operation.js';
import { CreateAccountBody, CreateAccountResponse, GetSettingsBody, SettingsResponse, UpdateSettingsBody } from './account.schemas.js';
import type { AccountService } from './account.service.js';

export function accountOperations({ accounts }: { accounts: AccountService }) {
  return [
    defineOperation({
      module: 'account',
      name: 'create',
      writes: true,
      audit: { target: 'account', created: ({ result }) => (result as { data: { userId: string } }).data.userId },
      summary: 'Create a tenant account (operator only)',
      principals: ['client'],
      // Its one module code, 1512 (the username is taken), is the agent table's: logins are unique across clients and agents.
      errorModule: 'agent',
      body: CreateAccountBody,
      response: CreateAccountResponse,
      errors: [1000, 1001, 1014, 1015, 1047, 1512],
      errorNotes: { 1512: 'the username is taken (by a client or as an agent e-mail)' },
      examples: {
        request: { username: 'acme', password: 'acme-password', name: 'Acme Support', timezone: 'Asia/Kolkata' },
        response: { data: { userId: '2' } },
      },
      async handler({ principal, body }) {
        if (!principal.isOperator) throw fail(1015, 'only the operator account creates accounts');
        const id = await accounts.create(body);
        return { data: { userId: String(id) } };
      },
    }),
    defineOperation({
      module: 'account',
      name: 'getSettings',
      writes: false,
      summary: "The calling account's settings",
      principals: ['client'],
      body: GetSettingsBody,
      response: SettingsResponse,
      errors: [1014, 1015, 1047],
      examples: {
        request: {},
        response: {
          data: {
            timezone: 'Asia/Kolkata',
            defaultGroupId: 55,
            ghostThresholdSecs: 3,
            customFields: [],
            retention: { callDays: 365, recordingDays: 90, auditDays: null },
            breakReasons: ['break', 'lunch', 'training', 'meeting'],
          },
        },
      },
      async handler({ principal }) {
        return { data: await accounts.settings(principal.accountId) };
      },
    }),
    defineOperation({
      module: 'account',
      name: 'updateSettings',
      writes: true,
      audit: { target: 'account', id: ({ principal }) => principal.accountId },
      summary: "Change the calling account's settings (merge)",
      principals: ['client'],
      body: UpdateSettingsBody,
      response: SettingsResponse,
      errors: [1000, 1001, 1014, 1015, 1047],
      examples: {
        request: { ghostThresholdSecs: 5, customFields: [{ key: 'custom_plan', type: 'text' }], retention: { recordingDays: 90 } },
        response: {
          data: {
            timezone: 'Asia/Kolkata',
            defaultGroupId: 55,
            ghostThresholdSecs: 5,
            customFields: [{ key: 'custom_plan', type: 'text' }],
            retention: { callDays: 365, recordingDays: 90, auditDays: null },
            breakReasons: ['break', 'lunch', 'training', 'meeting'],
          },
        },
      },
      async handler({ principal, body }) {
        const { timezone, defaultGroupId, ghostThresholdSecs, customFields, retention, breakReasons } = body;
        const patch = Object.fromEntries(
          Object.entries({ timezone, defaultGroupId, ghostThresholdSecs, customFields, retention, breakReasons }).filter(([, v]) => v !== undefined),
        );
        return { data: await accounts.updateSettings(principal.accountId, patch) };
      },
    }),
  ];
}
