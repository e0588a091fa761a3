"""The request's own edges: an over-long request line (414) or header section (431), answered
as problem+json like every other refusal.

aiohttp refuses a request line or a header over its parser limits before any handler or
middleware runs, with a text/plain 400 of its own, and offers no public hook to shape that
answer (``RequestHandler.handle_error`` is reached only from inside its protocol). So the
parser's limits are set well above the documented ones (:data:`PARSER_LIMITS`, passed as the
application's ``handler_args``) and the documented limits are enforced here, where the answer is
ours. A request beyond the parser's own limits still gets aiohttp's plain 400 and a closed
connection; the README says so.
"""

from __future__ import annotations

from typing import Final

from aiohttp import web

from hookproof.errors import HookproofError

__all__ = [
    "MAX_FIELD",
    "MAX_FIELDS",
    "MAX_REQUEST_LINE",
    "PARSER_LIMITS",
    "HeaderFieldsTooLarge",
    "UriTooLong",
    "check_edges",
]

#: the longest request line answered (``METHOD SP target SP HTTP/1.1``, without CRLF)
MAX_REQUEST_LINE: Final = 8190
#: the longest header name, and the longest header value (each on its own, as aiohttp counts)
MAX_FIELD: Final = 8190
#: the most header fields one request may carry
MAX_FIELDS: Final = 128
#: aiohttp's parser limits (its text/plain 400 beyond them): four, two and two times ours
PARSER_LIMITS: Final = {
    "max_line_size": 4 * (MAX_REQUEST_LINE + 2),
    "max_field_size": 2 * (MAX_FIELD + 2),
    "max_headers": 2 * MAX_FIELDS,
}


class UriTooLong(HookproofError):
    """414 (RFC 9110 15.5.15): the request line is over :data:`MAX_REQUEST_LINE` bytes."""

    code = "uri_too_long"
    status = 414
    title = "URI Too Long"


class HeaderFieldsTooLarge(HookproofError):
    """431 (RFC 6585 5): a header name or value over :data:`MAX_FIELD` bytes, or more than
    :data:`MAX_FIELDS` fields (``header_too_large``, ``too_many_headers``)."""

    code = "header_too_large"
    status = 431
    title = "Request Header Fields Too Large"


def check_edges(request: web.BaseRequest) -> None:
    """Raise the problem for a request line or header section over the documented limits."""
    version = request.version
    line = (
        len(request.method.encode())
        + len(request.raw_path.encode("utf-8", "surrogateescape"))
        + len(f"HTTP/{version.major}.{version.minor}")
        + 2
    )
    if line > MAX_REQUEST_LINE:
        raise UriTooLong(f"the request line may be at most {MAX_REQUEST_LINE} bytes")
    fields = request.raw_headers
    if len(fields) > MAX_FIELDS:
        raise HeaderFieldsTooLarge(
            f"a request may carry at most {MAX_FIELDS} header fields", code="too_many_headers"
        )
    for name, value in fields:
        if len(name) > MAX_FIELD or len(value) > MAX_FIELD:
            raise HeaderFieldsTooLarge(
                f"a header name or value may be at most {MAX_FIELD} bytes",
                field=name.decode("latin-1")[:100],
            )
