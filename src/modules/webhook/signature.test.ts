import { describe, expect, it } from 'vitest';
import { messageId, newSecret, sign } from './signature.js';

describe('Standard Webhooks signature', () => {
  it('matches the example of the Standard Webhooks specification', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(sign(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
  it('makes secrets of 32 random bytes', () => {
    const a = newSecret();
    expect(a).toMatch(/^whsec_/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(a);
  });
  it('derives one message id per account, subscription and call', () => {
    expect(messageId(1, 2, 'c')).toBe(messageId(1, 2, 'c'));
    expect(messageId(1, 2, 'c')).not.toBe(messageId(1, 3, 'c'));
    expect(messageId(1, 2, 'c')).not.toBe(messageId(2, 2, 'c'));
    expect(messageId(1, 2, 'c')).toMatch(/^msg_[\w-]{27}$/);
  });
});
