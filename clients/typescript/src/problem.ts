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
  override readonly name: string = "HookproofProblem";
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
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
    this.type = typeof body.type === "string" ? body.type : "about:blank";
    this.field = typeof body.field === "string" ? body.field : undefined;
    this.body = body;
  }
}

function stringMember(body: ProblemBody, name: string): string | undefined {
  const v = body[name];
  return typeof v === "string" ? v : undefined;
}

function intMember(body: ProblemBody, name: string): number | undefined {
  const v = body[name];
  return typeof v === "number" && Number.isInteger(v) ? v : undefined;
}

/** 400 (or 422): the request was refused as written; `field` names the input. */
export class InvalidRequest extends HookproofProblem {
  override readonly name = "InvalidRequest";
}

/** 401: no valid token (`portal_session_expired` for an ended portal session). */
export class Unauthorized extends HookproofProblem {
  override readonly name = "Unauthorized";
}

/** 403: the token may not do this. */
export class Forbidden extends HookproofProblem {
  override readonly name = "Forbidden";
}

/** 404: nothing of the caller's has this id (another tenant's things are never found). */
export class NotFound extends HookproofProblem {
  override readonly name = "NotFound";
}

/** 409: the request conflicts with what exists (`consumer_exists`, ...). */
export class Conflict extends HookproofProblem {
  override readonly name: string = "Conflict";
}

/**
 * 409 `event_payload_conflict`: this `eventId` was accepted with another payload; `eventId` and
 * `payloadDigest` (the digest of the payload the engine kept).
 */
export class PayloadConflict extends Conflict {
  override readonly name = "PayloadConflict";
  get eventId(): string | undefined {
    return stringMember(this.body, "eventId");
  }
  get payloadDigest(): string | undefined {
    return stringMember(this.body, "payloadDigest");
  }
}

/**
 * 412 `generation_mismatch` (the `If-Match` sent is not the current ETag; `etag` and
 * `currentGeneration` say what is) or 428 `if_match_required`.
 */
export class PreconditionFailed extends HookproofProblem {
  override readonly name = "PreconditionFailed";
  get etag(): string | undefined {
    return stringMember(this.body, "etag");
  }
  get currentGeneration(): number | undefined {
    return intMember(this.body, "currentGeneration");
  }
}

/** 429: this caller spent its budget; `retryAfterS` says when to come back. */
export class RateLimited extends HookproofProblem {
  override readonly name = "RateLimited";
  get retryAfterS(): number | undefined {
    return intMember(this.body, "retryAfterS");
  }
}

/** 503: the engine cannot serve now (`database_unavailable`); publishing retries it. */
export class Unavailable extends HookproofProblem {
  override readonly name = "Unavailable";
}

const BY_STATUS: Record<number, new (status: number, body: ProblemBody) => HookproofProblem> = {
  400: InvalidRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  412: PreconditionFailed,
  422: InvalidRequest,
  428: PreconditionFailed,
  429: RateLimited,
  503: Unavailable,
};

/** The problem as the subclass for its status (and code): what a caller catches. */
export function typedProblem(status: number, body: ProblemBody): HookproofProblem {
  if (status === 409 && body.code === "event_payload_conflict") return new PayloadConflict(status, body);
  const Kind = BY_STATUS[status] ?? HookproofProblem;
  return new Kind(status, body);
}

/**
 * The problem for a non-2xx `response` whose body was already read as `body` (openapi-fetch
 * hands it over parsed when it was JSON, as text otherwise), as its typed subclass.
 */
export function problemFrom(response: Response, body: unknown): HookproofProblem {
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    return typedProblem(response.status, body as ProblemBody);
  }
  const text = typeof body === "string" ? body.slice(0, 200) : undefined;
  return typedProblem(response.status, {
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
