import type { Queryable } from '../../db/types.js';

/** The recording-token signing key (`recording_keys`, migration 060): service-wide, so not tenant-scoped. */
export class RecordingKeyRepository {
  constructor(private readonly db: Queryable) {}

  /** The stored key; `candidate` is stored first when there is none (the first node wins, the rest read it). */
  async ensure(candidate: string): Promise<string> {
    await this.db.run('INSERT INTO recording_keys (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [candidate]);
    const row = await this.db.get<{ secret: string }>('SELECT secret FROM recording_keys WHERE id = 1');
    return row!.secret;
  }
}
