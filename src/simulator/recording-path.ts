/** Where a call's recording goes: `YYYY/MM/DD/<callId>.wav` (UTC date of its end). */
export function recordingPathFor(callId: string, endedAt: number): string {
  const d = new Date(endedAt * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${callId.replace(/[^A-Za-z0-9._-]/g, '_')}.wav`;
}
