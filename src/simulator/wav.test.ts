import { describe, expect, it } from 'vitest';
import { toneWav } from './wav.js';

describe('toneWav', () => {
  it('writes a RIFF/WAVE header for 8 kHz 8-bit mono PCM and the samples of a faded sine', () => {
    const wav = toneWav(0.5, 440);
    expect(wav.length).toBe(44 + 4000); // 0.5 s × 8000 samples/s × 1 byte
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(36 + 4000);
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt32LE(28), wav.readUInt16LE(32), wav.readUInt16LE(34)]).toEqual([
      1, 1, 8000, 8000, 1, 8,
    ]);
    expect(wav.toString('ascii', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(4000);
    // Silence (128) at both ends, a full swing in the middle.
    expect(wav[44]).toBe(128);
    expect(wav[wav.length - 1]).toBe(128);
    const middle = [...wav.subarray(44 + 1000, 44 + 1100)];
    expect(Math.max(...middle)).toBeGreaterThan(220);
    expect(Math.min(...middle)).toBeLessThan(36);
  });
});
