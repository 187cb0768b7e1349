/**
 * A recording's path as the switch reports it, relative to RECORDINGS_DIR:
 * `/`-separated segments of letters, digits, `.`, `_`, `-` (never `.` or
 * `..`), so it can never leave the directory and its segments can be joined
 * with `*` in a CallReport `rcrd` token.
 */
export function recordingPath(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length === 0 || v.length > 512) return undefined;
  const segments = v.split('/');
  return segments.every((s) => /^[A-Za-z0-9._-]+$/.test(s) && s !== '.' && s !== '..') ? v : undefined;
}
