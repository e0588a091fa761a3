"""A subscription's ``transformation`` (DESIGN.md section 17), checked when written.

``{"language": "javascript", "code": "function handler(webhook) { ... }"}``: the code must
parse and define ``handler`` (it is run once, in the sandbox, on a sample webhook; only a
syntax failure, or code over the size cap, refuses it: a script that throws on the sample
may well handle the real events). Refused: a 400 ``transformation_invalid`` with the
script's message and line.
"""

from __future__ import annotations

from typing import Any

from hookproof.errors import ValidationError
from hookproof.events.subscription_events import TransformationSpec

from ..transform.decide import code_digest
from ..transform.model import Failure, FailureKind, TransformInput
from ..transform.shared import shared_sandbox

__all__ = ["TRANSFORMATION_INVALID", "transformation_spec"]

TRANSFORMATION_INVALID = "transformation_invalid"
_SAMPLE = TransformInput(payload={}, event_type="hookproof.sample", url="/")


async def transformation_spec(body: Any) -> TransformationSpec | None:
    """The checked transformation (None: none given, or removed with ``null``)."""
    if body is None:
        return None
    language, code = body.language, body.code
    result = await shared_sandbox().run(code, _SAMPLE)
    if isinstance(result, Failure) and result.kind is FailureKind.SYNTAX:
        where = f" (line {result.line})" if result.line is not None else ""
        raise ValidationError(
            f"the transformation does not compile: {result.message}{where}",
            field="transformation.code",
            code="transformation_invalid",
        )
    return TransformationSpec(language=language, code=code, digest=code_digest(code))
