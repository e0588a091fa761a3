/**
 * `JwksCache`: the engine's JWK Set, fetched, cached for as long as its HTTP cache headers say
 * (`Cache-Control: max-age` / `no-cache` / `no-store`, else `Expires`, else `defaultTtlMs`),
 * revalidated with `If-None-Match`, and refetched on an unknown key id at most once per
 * `minRefreshIntervalMs`. A failed fetch keeps the last good set.
 */
import { parseJwks, type VerificationKey } from "./keys.js";

export const JWKS_PATH = "/.well-known/hookproof/jwks.json";
const MAX_JWKS_BYTES = 1 << 20;

/** A `fetch`-compatible function (the global one by default). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface JwksCacheOptions {
  /** Used when the response carries no cache headers (default 300 000 ms). */
  defaultTtlMs?: number;
  /** The most a response may be cached, whatever its headers say (default 3 600 000 ms). */
  maxTtlMs?: number;
  /** At most one refetch for an unknown key id per this interval (default 10 000 ms). */
  minRefreshIntervalMs?: number;
  /** Per-request timeout (default 10 000 ms). */
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Milliseconds clock (default `Date.now`). */
  clock?: () => number;
}

function cacheLifetimeMs(res: Response, now: number, fallback: number, cap: number): number {
  const cc = (res.headers.get("cache-control") ?? "").toLowerCase();
  if (/(^|[,\s])(no-store|no-cache)([,\s=]|$)/.test(cc)) return 0;
  const m = /(?:^|[,\s])max-age\s*=\s*"?(\d+)"?/.exec(cc);
  if (m) {
    const age = Number(res.headers.get("age") ?? "0");
    const ttl = Number(m[1]) * 1000 - (Number.isFinite(age) && age > 0 ? age * 1000 : 0);
    return Math.min(Math.max(ttl, 0), cap);
  }
  const expires = res.headers.get("expires");
  if (expires !== null) {
    const at = Date.parse(expires);
    const date = Date.parse(res.headers.get("date") ?? "");
    if (Number.isNaN(at)) return 0;
    const base = Number.isNaN(date) ? now : date;
    return Math.min(Math.max(at - base, 0), cap);
  }
  return Math.min(fallback, cap);
}

async function readBounded(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_JWKS_BYTES) {
      await reader.cancel();
      throw new Error("JWKS document too large");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Ed25519 engine keys from a JWKS URL, cached per the HTTP cache headers. */
export class JwksCache {
  readonly url: string;
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly minRefreshIntervalMs: number;
  readonly timeoutMs: number;
  /** Fetches made (successful or not). */
  fetches = 0;
  /** The last fetch error's name, or undefined after a success. */
  lastError: string | undefined;
  private readonly fetchFn: FetchLike;
  private readonly clock: () => number;
  private keys = new Map<string, VerificationKey>();
  private freshUntil: number | undefined;
  private attemptedAt: number | undefined;
  private etag: string | undefined;
  private inflight: Promise<boolean> | undefined;

  constructor(url: string, options: JwksCacheOptions = {}) {
    this.url = url;
    this.defaultTtlMs = options.defaultTtlMs ?? 300_000;
    this.maxTtlMs = options.maxTtlMs ?? 3_600_000;
    this.minRefreshIntervalMs = options.minRefreshIntervalMs ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.fetchFn = options.fetch ?? ((u, init) => fetch(u, init));
    this.clock = options.clock ?? Date.now;
  }

  /** The cache for `<engine>/.well-known/hookproof/jwks.json`. */
  static forEngine(engineBaseUrl: string, options: JwksCacheOptions = {}): JwksCache {
    return new JwksCache(engineBaseUrl.replace(/\/+$/, "") + JWKS_PATH, options);
  }

  /** Key ids held now. */
  get keyIds(): string[] {
    return [...this.keys.keys()].sort();
  }

  /** Every key held now (no fetch). */
  cached(): VerificationKey[] {
    return [...this.keys.values()];
  }

  /** The key held for `keyId`, without fetching. */
  peek(keyId: string): VerificationKey | undefined {
    return this.keys.get(keyId);
  }

  private stale(): boolean {
    return this.freshUntil === undefined || this.clock() >= this.freshUntil;
  }

  /** Whether the rate limit allows a refetch now. */
  mayRefresh(): boolean {
    return this.attemptedAt === undefined || this.clock() - this.attemptedAt >= this.minRefreshIntervalMs;
  }

  /** Fetch (or revalidate) the set now; true on success. Concurrent callers share one fetch. */
  refresh(): Promise<boolean> {
    if (this.inflight === undefined) {
      this.inflight = this.doRefresh().finally(() => {
        this.inflight = undefined;
      });
    }
    return this.inflight;
  }

  private async doRefresh(): Promise<boolean> {
    this.attemptedAt = this.clock();
    this.fetches++;
    try {
      const headers: Record<string, string> = { accept: "application/jwk-set+json, application/json" };
      if (this.etag !== undefined && this.keys.size > 0) headers["if-none-match"] = this.etag;
      const res = await this.fetchFn(this.url, {
        headers,
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const now = this.clock();
      if (res.status === 304 && this.keys.size > 0) {
        await res.body?.cancel();
        this.freshUntil = now + cacheLifetimeMs(res, now, this.defaultTtlMs, this.maxTtlMs);
        this.lastError = undefined;
        return true;
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new Error(`JWKS fetch failed with HTTP ${res.status}`);
      }
      this.keys = parseJwks(await readBounded(res));
      this.etag = res.headers.get("etag") ?? undefined;
      this.freshUntil = now + cacheLifetimeMs(res, now, this.defaultTtlMs, this.maxTtlMs);
      this.lastError = undefined;
      return true;
    } catch (err) {
      this.lastError = err instanceof Error ? err.name : "Error";
      return false;
    }
  }

  /** A key held as NOT_BEFORE that is now used has probably just been promoted. */
  private pending(key: VerificationKey | undefined): boolean {
    return (
      key !== undefined &&
      key.state === "NOT_BEFORE" &&
      (this.attemptedAt === undefined || this.clock() - this.attemptedAt >= 50)
    );
  }

  /**
   * The key for `keyId`: from the cache while fresh; refetched first when the cache is stale
   * or the key id is unknown (at most once per `minRefreshIntervalMs`), or when a key held as
   * NOT_BEFORE is used.
   */
  async get(keyId: string): Promise<VerificationKey | undefined> {
    if (this.inflight !== undefined) await this.inflight; // a fetch under way answers first
    const key = this.keys.get(keyId);
    if (key !== undefined && !this.stale() && !this.pending(key)) return key;
    if (((key === undefined || this.stale()) && this.mayRefresh()) || this.pending(key)) {
      await this.refresh();
    }
    return this.keys.get(keyId);
  }

  /** Every key, fetching first when nothing is held yet or the cache is stale (rate-limited). */
  async all(): Promise<VerificationKey[]> {
    if (this.inflight !== undefined) await this.inflight;
    if ((this.keys.size === 0 || this.stale()) && this.mayRefresh()) await this.refresh();
    return this.cached();
  }
}
