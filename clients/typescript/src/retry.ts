/**
 * Retries for requests that are safe to repeat (publishing: the engine deduplicates by
 * `eventId`). Network errors and 503 / 429 answers are retried with capped exponential backoff
 * and full jitter; a `Retry-After` in seconds is honoured up to `maxDelayMs`.
 */

export interface RetryOptions {
  /** Tries after the first one (default 4). */
  retries?: number;
  /** First backoff ceiling in milliseconds (default 200). */
  initialDelayMs?: number;
  /** Largest wait between two tries in milliseconds (default 5000). */
  maxDelayMs?: number;
}

export interface RetryPolicy {
  retries: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, initialDelayMs: 200, maxDelayMs: 5000 };

export function retryPolicy(options: RetryOptions | undefined): RetryPolicy {
  const p = { ...DEFAULT_RETRY, ...(options ?? {}) };
  if (!Number.isInteger(p.retries) || p.retries < 0) throw new RangeError("retries must be an integer >= 0");
  if (!(p.initialDelayMs >= 0) || !(p.maxDelayMs >= 0)) throw new RangeError("delays must be >= 0");
  return p;
}

/** Statuses that say "try again later" without the request having taken effect. */
export function retryableStatus(status: number): boolean {
  return status === 503 || status === 429;
}

/** The wait before try number `attempt + 1` (attempt counts from 0). */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfter: string | null): number {
  if (retryAfter !== null && /^\d{1,6}$/.test(retryAfter.trim())) {
    return Math.min(Number(retryAfter.trim()) * 1000, policy.maxDelayMs);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  return Math.random() * ceiling;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
