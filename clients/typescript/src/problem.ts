/**
 * RFC 9457 problems as typed errors: every answer of the API outside 2xx is a
 * `application/problem+json` body with a stable `code` (README, "The outside contract").
 */

/** The fields of a problem+json body (`field`: the offending input, when there is one). */
export interface ProblemBody {
  type?: string;
  title?: string;
  status?: number;
  code?: string;
  detail?: string;
  field?: string;
  [extra: string]: unknown;
}

/**
 * An API answer outside 2xx. `code` is the API's stable reason code (for example
 * `event_payload_conflict`, `database_unavailable`); an answer that was not problem+json gets
 * `http_<status>` so callers can still switch on `code`.
 */
export class HookproofProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly type: string;
  readonly field: string | undefined;
  /** The whole body as received (extension members included). */
  readonly body: ProblemBody;

  constructor(status: number, body: ProblemBody) {
    const code = typeof body.code === "string" && body.code ? body.code : `http_${status}`;
    const title = typeof body.title === "string" ? body.title : `HTTP ${status}`;
    const detail = typeof body.detail === "string" ? body.detail : undefined;
    super(detail ? `${status} ${code}: ${title}: ${detail}` : `${status} ${code}: ${title}`);
    this.name = "HookproofProblem";
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
    this.type = typeof body.type === "string" ? body.type : "about:blank";
    this.field = typeof body.field === "string" ? body.field : undefined;
    this.body = body;
  }
}

/**
 * The problem for a non-2xx `response` whose body was already read as `body` (openapi-fetch
 * hands it over parsed when it was JSON, as text otherwise).
 */
export function problemFrom(response: Response, body: unknown): HookproofProblem {
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    return new HookproofProblem(response.status, body as ProblemBody);
  }
  const text = typeof body === "string" ? body.slice(0, 200) : undefined;
  return new HookproofProblem(response.status, {
    title: response.statusText || `HTTP ${response.status}`,
    ...(text ? { detail: text } : {}),
  });
}

/** The request never got an answer after every try (connection refused, reset, timeout). */
export class HookproofNetworkError extends Error {
  readonly attempts: number;

  constructor(attempts: number, cause: unknown) {
    super(`no answer after ${attempts} attempt(s): ${String((cause as Error)?.message ?? cause)}`, {
      cause,
    });
    this.name = "HookproofNetworkError";
    this.attempts = attempts;
  }
}
