/**
 * A bounded in-memory replay cache of `(keyid, nonce)` pairs until their `expires` (plus a
 * grace period), as the Python SDK's `NonceCache`. When full, expired entries go first, then
 * the ones closest to expiry (counted in `evictions`).
 */
export class NonceCache {
  readonly maxEntries: number;
  readonly grace: number;
  evictions = 0;
  private readonly entries = new Map<string, number>();
  private purgedAt = Number.NaN;

  constructor(maxEntries = 100_000, grace = 60) {
    if (maxEntries < 1) throw new RangeError("maxEntries must be >= 1");
    this.maxEntries = maxEntries;
    this.grace = grace;
  }

  get size(): number {
    return this.entries.size;
  }

  private purge(now: number): void {
    if (now !== this.purgedAt) {
      this.purgedAt = now;
      for (const [k, until] of this.entries) {
        if (until < now) this.entries.delete(k);
      }
    }
    // still full: the oldest entries go first (insertion order; expiries grow with time)
    for (const k of this.entries.keys()) {
      if (this.entries.size < this.maxEntries) break;
      this.entries.delete(k);
      this.evictions++;
    }
  }

  /** Record the pair; false if it was already present and not expired. `now` in epoch seconds. */
  checkAndAdd(keyId: string, nonce: string, expires: number, now: number): boolean {
    const k = `${keyId.length}:${keyId}${nonce}`;
    const prev = this.entries.get(k);
    if (prev !== undefined && prev >= now) return false;
    if (this.entries.size >= this.maxEntries) this.purge(now);
    this.entries.delete(k);
    this.entries.set(k, expires + this.grace);
    return true;
  }
}
