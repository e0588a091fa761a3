"""Typed errors for a bad ``filters`` array: one class, stable codes, the dialect and where."""

from __future__ import annotations

from hookproof.errors import ValidationError

__all__ = [
    "FILTER_INVALID",
    "FILTER_INVALID_MATCH",
    "FILTER_PARSE_ERROR",
    "FILTER_UNKNOWN_DIALECT",
    "FilterError",
]

#: a filter expression whose shape its dialect does not allow (not an object of one key, an
#: empty ``all``, a non-string ``exact`` value, ...)
FILTER_INVALID = "filter_invalid"
#: a key that names no dialect hookproof knows
FILTER_UNKNOWN_DIALECT = "filter_unknown_dialect"
#: a CESQL expression that does not parse (``position`` is the character offset)
FILTER_PARSE_ERROR = "filter_parse_error"
#: a JSON match document with an unknown ``$`` operator or an operand of the wrong kind
FILTER_INVALID_MATCH = "filter_invalid_match"


class FilterError(ValidationError):
    """A filter that cannot be compiled. ``dialect`` names the dialect at fault (None when the
    expression names none), ``path`` is a JSON Pointer into the ``filters`` array and
    ``position`` the 0-based character offset in a CESQL expression (None elsewhere)."""

    code = FILTER_INVALID
    title = "Invalid filter"

    def __init__(
        self,
        detail: str,
        *,
        code: str = FILTER_INVALID,
        dialect: str | None = None,
        path: str = "",
        position: int | None = None,
    ) -> None:
        extra: dict[str, object] = {"dialect": dialect, "path": path}
        if position is not None:
            extra["position"] = position
        super().__init__(detail, field="filters", code=code, **extra)
        self.dialect = dialect
        self.path = path
        self.position = position

    def at(self, prefix: str) -> FilterError:
        """The same error with its ``path`` under ``prefix`` (nested filters report where)."""
        out = FilterError(
            self.detail,
            code=self.code,
            dialect=self.dialect,
            path=prefix + self.path,
            position=self.position,
        )
        out.__cause__ = self.__cause__
        return out
