/**
 * A real, playable WAV file: RIFF header + 8-bit unsigned PCM, mono, of a
 * sine tone that fades in and out (no clicks). 8 kHz 8-bit keeps a 2-second
 * recording at 16 kB. Every browser and media player plays it.
 */
export function toneWav(seconds: number, frequencyHz: number, sampleRate = 8000): Buffer {
  const samples = Math.max(1, Math.round(seconds * sampleRate));
  const out = Buffer.alloc(44 + samples);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + samples, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16); // fmt chunk size
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate, 28); // byte rate: 1 byte per sample
  out.writeUInt16LE(1, 32); // block align
  out.writeUInt16LE(8, 34); // bits per sample
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(samples, 40);
  const fade = Math.min(samples / 2, sampleRate * 0.05);
  for (let i = 0; i < samples; i++) {
    const envelope = Math.min(1, i / fade, (samples - 1 - i) / fade);
    out[44 + i] = Math.round(128 + 100 * envelope * Math.sin((2 * Math.PI * frequencyHz * i) / sampleRate));
  }
  return out;
}
