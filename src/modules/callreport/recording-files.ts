import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { recordingPath } from '../calls/recording-path.js';

/** Content types by extension; anything else is served as bytes. */
const TYPES: Readonly<Record<string, string>> = {
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.oga': 'audio/ogg',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
  '.webm': 'audio/webm',
  '.flac': 'audio/flac',
  '.gsm': 'audio/x-gsm',
};

export function contentTypeOf(file: string): string {
  return TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export interface RecordingFile {
  file: string;
  size: number;
  type: string;
}

/**
 * The file of a recording path, or null when there is none inside the
 * directory. Three locks, each enough alone: the path must have the shape
 * `call.recording` accepts (relative segments, never `.` or `..`); the joined
 * path must stay under the directory; and its real path (symlinks resolved)
 * must too, so a link inside the directory that points outside is refused.
 */
export async function findRecording(dir: string, relative: string): Promise<RecordingFile | null> {
  if (recordingPath(relative) === undefined) return null;
  const root = path.resolve(dir);
  const joined = path.resolve(root, relative);
  if (!joined.startsWith(root + path.sep)) return null;
  try {
    const realRoot = await realpath(root);
    const real = await realpath(joined);
    if (!real.startsWith(realRoot + path.sep)) return null;
    const s = await stat(real);
    if (!s.isFile()) return null;
    return { file: real, size: s.size, type: contentTypeOf(real) };
  } catch {
    return null;
  }
}
