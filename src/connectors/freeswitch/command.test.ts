import { describe, expect, it } from 'vitest';
import { OptionError } from '../core/index.js';
import { freeswitchOptions } from './command.js';

const api = { api: 'http://127.0.0.1:8080', 'user-id': 'switch-1', token: 't' };

describe('connect freeswitch options', () => {
  it('defaults: ESL port 8021, contexts `default`, reconcile every 60 s, Reserved fixed', () => {
    const o = freeswitchOptions({ ...api, esl: 'fs1.example.net', 'esl-password': 'ClueCon' }, {});
    expect(o).toMatchObject({
      esl: { host: 'fs1.example.net', port: 8021 },
      eslPassword: 'ClueCon',
      takeoverContext: 'default',
      originateContext: 'default',
      reconcileSecs: 60,
      fixReserved: true,
      multiSwitch: false,
      switchName: 'freeswitch',
    });
  });

  it('the password may come from CALLCENTER_ESL_PASSWORD; the flags win', () => {
    expect(freeswitchOptions({ ...api, esl: '10.0.0.5:8022' }, { CALLCENTER_ESL_PASSWORD: 'env' }).eslPassword).toBe('env');
    expect(freeswitchOptions({ ...api, esl: '10.0.0.5:8022', 'esl-password': 'flag' }, { CALLCENTER_ESL_PASSWORD: 'env' }).eslPassword).toBe('flag');
  });

  it('refuses what cannot work', () => {
    const bad: Record<string, string>[] = [
      { ...api, 'esl-password': 'p' },
      { ...api, esl: 'h:8021' },
      { ...api, esl: 'h:8021', 'esl-password': 'p', 'reconcile-s': '1' },
      { ...api, esl: 'h:8021', 'esl-password': 'p', 'fix-reserved': 'maybe' },
      { ...api, esl: 'h:8021', 'esl-password': 'p', 'multi-switch': '2' },
      { ...api, esl: 'h:8021', 'esl-password': 'p', 'takeover-context': 'a b' },
      { esl: 'h:8021', 'esl-password': 'p' },
    ];
    for (const o of bad) expect(() => freeswitchOptions(o, {}), JSON.stringify(o)).toThrow(OptionError);
  });
});
