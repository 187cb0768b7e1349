import { fail } from '../../errors/catalogue.js';
import { defineOperation } from '../../http/operation.js';
import { CreateAccountBody, CreateAccountResponse, GetSettingsBody, SettingsResponse, UpdateSettingsBody } from './account.schemas.js';
import type { AccountService } from './account.service.js';

export function accountOperations({ accounts }: { accounts: AccountService }) {
  return [
    defineOperation({
      module: 'account',
      name: 'create',
      summary: 'Create a tenant account (operator only)',
      principals: ['client'],
      body: CreateAccountBody,
      response: CreateAccountResponse,
      errors: [1000, 1001, 1014, 1015, 1047, 1512],
      async handler({ principal, body }) {
        if (!principal.isOperator) throw fail(1015, 'only the operator account creates accounts');
        const id = await accounts.create(body);
        return { data: { userId: String(id) } };
      },
    }),
    defineOperation({
      module: 'account',
      name: 'getSettings',
      summary: "The calling account's settings",
      principals: ['client'],
      body: GetSettingsBody,
      response: SettingsResponse,
      errors: [1014, 1015, 1047],
      async handler({ principal }) {
        return { data: await accounts.settings(principal.accountId) };
      },
    }),
    defineOperation({
      module: 'account',
      name: 'updateSettings',
      summary: "Change the calling account's settings (merge)",
      principals: ['client'],
      body: UpdateSettingsBody,
      response: SettingsResponse,
      errors: [1000, 1001, 1014, 1015, 1047],
      async handler({ principal, body }) {
        const { timezone, defaultGroupId, ghostThresholdSecs, customFields } = body;
        const patch = Object.fromEntries(Object.entries({ timezone, defaultGroupId, ghostThresholdSecs, customFields }).filter(([, v]) => v !== undefined));
        return { data: await accounts.updateSettings(principal.accountId, patch) };
      },
    }),
  ];
}
