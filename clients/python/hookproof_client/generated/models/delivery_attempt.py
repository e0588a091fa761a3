from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.attempt_request_view import AttemptRequestView





T = TypeVar("T", bound="DeliveryAttempt")



@_attrs_define
class DeliveryAttempt:
    """ One attempt of a delivery (its outcome, status, code, timings, ``response``: what came
    back; more fields as the view grows) and ``request``: what it sent.

        Attributes:
            attempt (int):
            outcome (str):
            request (AttemptRequestView): What one attempt sent: ``method`` (``POST``; ``null`` for a broker, which
                publishes),
                ``target`` (the endpoint, or the broker destination URI), ``headers`` (``[name, value]``
                in the order sent; ``Signature-Input``, ``Signature`` and ``webhook-signature`` read
                ``[redacted]``; an endpoint authentication header is not listed). Rebuilt from the
                delivery's events; ``traceparent`` and ``webhook-timestamp`` are recorded with the
                attempt's outcome (``recorded``: false for an attempt without one, lost with its
                dispatcher or sent before it was recorded: those values are then ``null``).
     """

    attempt: int
    outcome: str
    request: AttemptRequestView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_request_view import AttemptRequestView # noqa: PLC0415
        attempt = self.attempt

        outcome = self.outcome

        request = self.request.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempt": attempt,
            "outcome": outcome,
            "request": request,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_request_view import AttemptRequestView # noqa: PLC0415
        d = dict(src_dict)
        attempt = d.pop("attempt")

        outcome = d.pop("outcome")

        request = AttemptRequestView.from_dict(d.pop("request"))




        delivery_attempt = cls(
            attempt=attempt,
            outcome=outcome,
            request=request,
        )


        delivery_attempt.additional_properties = d
        return delivery_attempt

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
