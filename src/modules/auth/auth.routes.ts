import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { fail } from '../../errors/catalogue.js';
import { defineOperation } from '../../http/operation.js';
import type { AuthService } from '../../auth/auth.service.js';
import { PERMISSIONS } from '../../auth/permissions.js';

const Message = { message: Type.String() };

export function authOperations({ auth }: { auth: AuthService }) {
  return [
    defineOperation({
      module: 'auth',
      name: 'login',
      writes: true,
      audit: { exempt: 'PRODUCT.md §12: login is not audited (login protection records lockouts and logins after failures)' },
      summary: 'Log in with a client username or an agent e-mail; answers a session id (ssid)',
      auth: false,
      body: Type.Object({ username: Type.String({ minLength: 1, maxLength: 200 }), password: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: SuccessSchema({
        ssid: Type.String(),
        userId: Type.String(),
        expiresAt: Type.Integer({ description: 'Unix seconds; sliding: every use extends it' }),
      }),
      errors: [1000, 1014, 1047],
      errorNotes: { 1014: 'wrong username or password' },
      description:
        'Login protection: after LOGIN_USER_FAILURES (5) failed logins for a username within LOGIN_WINDOW_SECONDS (900), or LOGIN_IP_FAILURES (100) ' +
        'from one IP, logins are answered HTTP 429 (code 429, `Retry-After` in seconds) for 1 s, doubling with each further failure up to 15 min; ' +
        'beyond LOGIN_CONCURRENCY (4) password checks at once on a node, 429 at once. See docs/audit.md.',
      examples: {
        request: { username: 'acme', password: 'acme-password' },
        response: { ssid: 'k3Vq8ZtR1mXw0bN6yLcP4sJd9fHa2GeU7oTiQ5nEvBw', userId: '2', expiresAt: 1768078800 },
      },
      async handler({ body, request }) {
        return auth.login(body.username, body.password, request.ip);
      },
    }),
    defineOperation({
      module: 'auth',
      name: 'token',
      writes: true,
      audit: { target: 'token', created: ({ result }) => auth.tokenIdOf((result as { token: string }).token) },
      summary: 'Create a long-lived token for the userId + token form (kind switch: clients only)',
      body: Type.Object({
        name: Type.Optional(Type.String({ maxLength: 100 })),
        kind: Type.Optional(Type.Union([Type.Literal('api'), Type.Literal('switch')])),
      }),
      response: SuccessSchema({ userId: Type.String(), token: Type.String() }),
      errors: [1000, 1002, 1014, 1015, 1047],
      examples: {
        request: { name: 'PBX', kind: 'switch' },
        response: { userId: 'switch-2', token: 'Qz7mL2xV9cB4nR8tK1wY6hJ3fD0sA5gE2uP9iO4lMkc' },
      },
      async handler({ principal, body }) {
        const kind = body.kind ?? 'api';
        if (kind === 'switch' && principal.kind !== 'client') throw fail(1015, 'only a client creates switch tokens');
        return auth.createToken(principal, kind, body.name ?? '');
      },
    }),
    defineOperation({
      module: 'auth',
      name: 'revokeToken',
      writes: true,
      audit: { target: 'token', id: ({ body }) => auth.tokenIdOf(body.revoke) },
      summary: 'Revoke a token at once, on every node',
      description:
        "A client may revoke any token of its account (its agents' and switch tokens included); an agent only its own. Any other token, or an unknown one: 1012.",
      body: Type.Object({ revoke: Type.String({ minLength: 1, description: 'The token to revoke' }) }),
      response: SuccessSchema(Message),
      errors: [1000, 1002, 1012, 1014, 1047],
      errorNotes: { 1012: 'no such token of the caller' },
      examples: { request: { revoke: 'Qz7mL2xV9cB4nR8tK1wY6hJ3fD0sA5gE2uP9iO4lMkc' }, response: { message: 'Token revoked' } },
      async handler({ principal, body }) {
        await auth.revokeToken(principal, body.revoke);
        return { message: 'Token revoked' };
      },
    }),
    defineOperation({
      module: 'auth',
      name: 'logout',
      writes: true,
      audit: { exempt: 'PRODUCT.md §12: logout is not audited' },
      summary: 'End the calling session',
      body: Type.Object({}),
      response: SuccessSchema(Message),
      errors: [1000, 1014, 1047],
      examples: { request: {}, response: { message: 'Logged out' } },
      async handler({ principal }) {
        await auth.logout(principal);
        return { message: 'Logged out' };
      },
    }),
    defineOperation({
      module: 'auth',
      name: 'whoami',
      writes: false,
      summary: 'Who the credentials are: client or agent, its agentId and the permissions it holds',
      description:
        'A client holds every permission; an agent those of its role. The console and the agent desk show a page or a button only when ' +
        'the permission of its operations is held (docs/console.md); the operations refuse it anyway (1015).',
      body: Type.Object({}),
      response: SuccessSchema({
        data: Type.Object(
          {
            kind: Type.Union([Type.Literal('client'), Type.Literal('agent')]),
            userId: Type.String(),
            agentId: Type.Union([Type.Integer(), Type.Null()]),
            permissions: Type.Array(Type.String(), { description: 'In the order of PRODUCT.md §4' }),
            canSee: Type.Boolean({ description: 'false: sees only itself and the agents below it' }),
          },
          { additionalProperties: false },
        ),
      }),
      errors: [1014, 1047],
      examples: {
        request: {},
        response: { data: { kind: 'agent', userId: 'agent-12', agentId: 12, permissions: ['agent.live', 'call.originate'], canSee: false } },
      },
      async handler({ principal }) {
        return {
          data: {
            kind: principal.kind === 'agent' ? 'agent' : 'client',
            userId: principal.userId,
            agentId: principal.agentId,
            permissions: PERMISSIONS.filter((p) => principal.permissions.has(p)),
            canSee: principal.canSee,
          },
        };
      },
    }),
  ];
}
