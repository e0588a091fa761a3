from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.attempt_request_view import AttemptRequestView
  from ..models.attempt_response_view import AttemptResponseView
  from ..models.broker_answer import BrokerAnswer





T = TypeVar("T", bound="DeliveryAttempt")



@_attrs_define
class DeliveryAttempt:
    """ One attempt of a delivery (its outcome, status, code, timings, ``response``: what came
    back; more fields as the view grows) and ``request``: what it sent.

        Attributes:
            admitted_at (str):
            attempt (int):
            dispatcher (None | str):
            drain (bool):
            endpoint (None | str):
            generation (int):
            key_generation (int | None):
            key_id (None | str):
            outcome (str):
            request (AttemptRequestView): What one attempt sent: ``method`` (``POST``; ``null`` for a broker, which
                publishes),
                ``target`` (the endpoint, or the broker destination URI), ``headers`` (``[name, value]``
                in the order sent; ``Signature-Input``, ``Signature`` and ``webhook-signature`` read
                ``[redacted]``; an endpoint authentication header is not listed). Rebuilt from the
                delivery's events; ``traceparent`` and ``webhook-timestamp`` are recorded with the
                attempt's outcome (``recorded``: false for an attempt without one, lost with its
                dispatcher or sent before it was recorded: those values are then ``null``).
            signature_algorithm (str):
            body_truncated (bool | Unset):
            broker (BrokerAnswer | Unset): A broker's answer to one publish, as its tenant sees it (never a credential).
            code (None | str | Unset):
            completed_at (str | Unset):
            duration_ms (float | None | Unset):
            location (None | str | Unset):
            peer_address (None | str | Unset):
            proxy (str | Unset):
            request_written (bool | None | Unset):
            response (AttemptResponseView | None | Unset):
            retry_at (None | str | Unset):
            spki_sha_256 (None | str | Unset):
            status (int | None | Unset):
     """

    admitted_at: str
    attempt: int
    dispatcher: None | str
    drain: bool
    endpoint: None | str
    generation: int
    key_generation: int | None
    key_id: None | str
    outcome: str
    request: AttemptRequestView
    signature_algorithm: str
    body_truncated: bool | Unset = UNSET
    broker: BrokerAnswer | Unset = UNSET
    code: None | str | Unset = UNSET
    completed_at: str | Unset = UNSET
    duration_ms: float | None | Unset = UNSET
    location: None | str | Unset = UNSET
    peer_address: None | str | Unset = UNSET
    proxy: str | Unset = UNSET
    request_written: bool | None | Unset = UNSET
    response: AttemptResponseView | None | Unset = UNSET
    retry_at: None | str | Unset = UNSET
    spki_sha_256: None | str | Unset = UNSET
    status: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_request_view import AttemptRequestView # noqa: PLC0415
        from ..models.attempt_response_view import AttemptResponseView # noqa: PLC0415
        from ..models.broker_answer import BrokerAnswer # noqa: PLC0415
        admitted_at = self.admitted_at

        attempt = self.attempt

        dispatcher: None | str
        dispatcher = self.dispatcher

        drain = self.drain

        endpoint: None | str
        endpoint = self.endpoint

        generation = self.generation

        key_generation: int | None
        key_generation = self.key_generation

        key_id: None | str
        key_id = self.key_id

        outcome = self.outcome

        request = self.request.to_dict()

        signature_algorithm = self.signature_algorithm

        body_truncated = self.body_truncated

        broker: dict[str, Any] | Unset = UNSET
        if not isinstance(self.broker, Unset):
            broker = self.broker.to_dict()

        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        completed_at = self.completed_at

        duration_ms: float | None | Unset
        if isinstance(self.duration_ms, Unset):
            duration_ms = UNSET
        else:
            duration_ms = self.duration_ms

        location: None | str | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        else:
            location = self.location

        peer_address: None | str | Unset
        if isinstance(self.peer_address, Unset):
            peer_address = UNSET
        else:
            peer_address = self.peer_address

        proxy = self.proxy

        request_written: bool | None | Unset
        if isinstance(self.request_written, Unset):
            request_written = UNSET
        else:
            request_written = self.request_written

        response: dict[str, Any] | None | Unset
        if isinstance(self.response, Unset):
            response = UNSET
        elif isinstance(self.response, AttemptResponseView):
            response = self.response.to_dict()
        else:
            response = self.response

        retry_at: None | str | Unset
        if isinstance(self.retry_at, Unset):
            retry_at = UNSET
        else:
            retry_at = self.retry_at

        spki_sha_256: None | str | Unset
        if isinstance(self.spki_sha_256, Unset):
            spki_sha_256 = UNSET
        else:
            spki_sha_256 = self.spki_sha_256

        status: int | None | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "admittedAt": admitted_at,
            "attempt": attempt,
            "dispatcher": dispatcher,
            "drain": drain,
            "endpoint": endpoint,
            "generation": generation,
            "keyGeneration": key_generation,
            "keyId": key_id,
            "outcome": outcome,
            "request": request,
            "signatureAlgorithm": signature_algorithm,
        })
        if body_truncated is not UNSET:
            field_dict["bodyTruncated"] = body_truncated
        if broker is not UNSET:
            field_dict["broker"] = broker
        if code is not UNSET:
            field_dict["code"] = code
        if completed_at is not UNSET:
            field_dict["completedAt"] = completed_at
        if duration_ms is not UNSET:
            field_dict["durationMs"] = duration_ms
        if location is not UNSET:
            field_dict["location"] = location
        if peer_address is not UNSET:
            field_dict["peerAddress"] = peer_address
        if proxy is not UNSET:
            field_dict["proxy"] = proxy
        if request_written is not UNSET:
            field_dict["requestWritten"] = request_written
        if response is not UNSET:
            field_dict["response"] = response
        if retry_at is not UNSET:
            field_dict["retryAt"] = retry_at
        if spki_sha_256 is not UNSET:
            field_dict["spkiSha256"] = spki_sha_256
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_request_view import AttemptRequestView # noqa: PLC0415
        from ..models.attempt_response_view import AttemptResponseView # noqa: PLC0415
        from ..models.broker_answer import BrokerAnswer # noqa: PLC0415
        d = dict(src_dict)
        admitted_at = d.pop("admittedAt")

        attempt = d.pop("attempt")

        def _parse_dispatcher(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        dispatcher = _parse_dispatcher(d.pop("dispatcher"))


        drain = d.pop("drain")

        def _parse_endpoint(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endpoint = _parse_endpoint(d.pop("endpoint"))


        generation = d.pop("generation")

        def _parse_key_generation(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        key_generation = _parse_key_generation(d.pop("keyGeneration"))


        def _parse_key_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        key_id = _parse_key_id(d.pop("keyId"))


        outcome = d.pop("outcome")

        request = AttemptRequestView.from_dict(d.pop("request"))




        signature_algorithm = d.pop("signatureAlgorithm")

        body_truncated = d.pop("bodyTruncated", UNSET)

        _broker = d.pop("broker", UNSET)
        broker: BrokerAnswer | Unset
        if isinstance(_broker,  Unset):
            broker = UNSET
        else:
            broker = BrokerAnswer.from_dict(_broker)




        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))


        completed_at = d.pop("completedAt", UNSET)

        def _parse_duration_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        duration_ms = _parse_duration_ms(d.pop("durationMs", UNSET))


        def _parse_location(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_peer_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        peer_address = _parse_peer_address(d.pop("peerAddress", UNSET))


        proxy = d.pop("proxy", UNSET)

        def _parse_request_written(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        request_written = _parse_request_written(d.pop("requestWritten", UNSET))


        def _parse_response(data: object) -> AttemptResponseView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_type_0 = AttemptResponseView.from_dict(data)



                return response_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AttemptResponseView | None | Unset, data)

        response = _parse_response(d.pop("response", UNSET))


        def _parse_retry_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        retry_at = _parse_retry_at(d.pop("retryAt", UNSET))


        def _parse_spki_sha_256(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        spki_sha_256 = _parse_spki_sha_256(d.pop("spkiSha256", UNSET))


        def _parse_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        delivery_attempt = cls(
            admitted_at=admitted_at,
            attempt=attempt,
            dispatcher=dispatcher,
            drain=drain,
            endpoint=endpoint,
            generation=generation,
            key_generation=key_generation,
            key_id=key_id,
            outcome=outcome,
            request=request,
            signature_algorithm=signature_algorithm,
            body_truncated=body_truncated,
            broker=broker,
            code=code,
            completed_at=completed_at,
            duration_ms=duration_ms,
            location=location,
            peer_address=peer_address,
            proxy=proxy,
            request_written=request_written,
            response=response,
            retry_at=retry_at,
            spki_sha_256=spki_sha_256,
            status=status,
        )

        return delivery_attempt

