from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.json_pointer_error import JsonPointerError





T = TypeVar("T", bound="Problem")



@_attrs_define
class Problem:
    """ RFC 9457 problem details with a stable ``code``. The other members are each carried
    by the codes named: ``field`` (the offending input, most 400s), ``errors``
    (``payload_schema_invalid``, ``example_invalid``), ``attribute`` (``cloudevent_*``),
    ``eventId`` and ``payloadDigest`` (``event_payload_conflict``: the digest stored),
    ``etag``, ``currentGeneration`` or ``currentVersion`` (412: what is current),
    ``retryAfterS`` (429), ``state`` and ``command`` (a transition the state forbids),
    ``id`` (``consumer_exists``), ``dialect``, ``path``, ``position`` (``filter_invalid``),
    ``declared`` (``event_version_undeclared``: the majors there are), ``pattern`` and
    ``positions`` (``pattern_too_complex``), ``kind`` and ``line`` (``transformation_failed``),
    ``url`` (``egress_refused``), ``subscriptionId``, ``deliveryId``, ``deliveredDigest``,
    ``receiptDigest`` (a receipt's refusal or conflict), ``rolloutId``, ``keyId``,
    ``keyState``, ``stage``, ``percent``, ``sourceKeyId``, ``sourceKeyState`` (a rollout's or
    a key's refusal).

        Attributes:
            code (str):
            status (int):
            title (str):
            type_ (str):
            attribute (str | Unset):
            command (str | Unset):
            current_generation (int | Unset):
            current_version (int | Unset):
            declared (list[int | str] | Unset):
            delivered_digest (None | str | Unset):
            delivery_id (None | str | Unset):
            detail (str | Unset):
            dialect (str | Unset):
            errors (list[JsonPointerError] | Unset):
            etag (str | Unset):
            event_id (str | Unset):
            field (str | Unset):
            id (str | Unset):
            key_id (None | str | Unset):
            key_state (None | str | Unset):
            kind (str | Unset):
            line (int | None | Unset):
            operation_id (None | str | Unset):
            path (str | Unset):
            pattern (str | Unset):
            payload_digest (str | Unset):
            percent (int | None | Unset):
            position (int | Unset):
            positions (int | None | Unset):
            receipt_digest (None | str | Unset):
            retry_after_s (int | Unset):
            rollout_id (None | str | Unset):
            source_key_id (None | str | Unset):
            source_key_state (None | str | Unset):
            stage (None | str | Unset):
            state (None | str | Unset):
            subscription_id (None | str | Unset):
            url (None | str | Unset):
     """

    code: str
    status: int
    title: str
    type_: str
    attribute: str | Unset = UNSET
    command: str | Unset = UNSET
    current_generation: int | Unset = UNSET
    current_version: int | Unset = UNSET
    declared: list[int | str] | Unset = UNSET
    delivered_digest: None | str | Unset = UNSET
    delivery_id: None | str | Unset = UNSET
    detail: str | Unset = UNSET
    dialect: str | Unset = UNSET
    errors: list[JsonPointerError] | Unset = UNSET
    etag: str | Unset = UNSET
    event_id: str | Unset = UNSET
    field: str | Unset = UNSET
    id: str | Unset = UNSET
    key_id: None | str | Unset = UNSET
    key_state: None | str | Unset = UNSET
    kind: str | Unset = UNSET
    line: int | None | Unset = UNSET
    operation_id: None | str | Unset = UNSET
    path: str | Unset = UNSET
    pattern: str | Unset = UNSET
    payload_digest: str | Unset = UNSET
    percent: int | None | Unset = UNSET
    position: int | Unset = UNSET
    positions: int | None | Unset = UNSET
    receipt_digest: None | str | Unset = UNSET
    retry_after_s: int | Unset = UNSET
    rollout_id: None | str | Unset = UNSET
    source_key_id: None | str | Unset = UNSET
    source_key_state: None | str | Unset = UNSET
    stage: None | str | Unset = UNSET
    state: None | str | Unset = UNSET
    subscription_id: None | str | Unset = UNSET
    url: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.json_pointer_error import JsonPointerError # noqa: PLC0415
        code = self.code

        status = self.status

        title = self.title

        type_ = self.type_

        attribute = self.attribute

        command = self.command

        current_generation = self.current_generation

        current_version = self.current_version

        declared: list[int | str] | Unset = UNSET
        if not isinstance(self.declared, Unset):
            declared = []
            for declared_item_data in self.declared:
                declared_item: int | str
                declared_item = declared_item_data
                declared.append(declared_item)



        delivered_digest: None | str | Unset
        if isinstance(self.delivered_digest, Unset):
            delivered_digest = UNSET
        else:
            delivered_digest = self.delivered_digest

        delivery_id: None | str | Unset
        if isinstance(self.delivery_id, Unset):
            delivery_id = UNSET
        else:
            delivery_id = self.delivery_id

        detail = self.detail

        dialect = self.dialect

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)



        etag = self.etag

        event_id = self.event_id

        field = self.field

        id = self.id

        key_id: None | str | Unset
        if isinstance(self.key_id, Unset):
            key_id = UNSET
        else:
            key_id = self.key_id

        key_state: None | str | Unset
        if isinstance(self.key_state, Unset):
            key_state = UNSET
        else:
            key_state = self.key_state

        kind = self.kind

        line: int | None | Unset
        if isinstance(self.line, Unset):
            line = UNSET
        else:
            line = self.line

        operation_id: None | str | Unset
        if isinstance(self.operation_id, Unset):
            operation_id = UNSET
        else:
            operation_id = self.operation_id

        path = self.path

        pattern = self.pattern

        payload_digest = self.payload_digest

        percent: int | None | Unset
        if isinstance(self.percent, Unset):
            percent = UNSET
        else:
            percent = self.percent

        position = self.position

        positions: int | None | Unset
        if isinstance(self.positions, Unset):
            positions = UNSET
        else:
            positions = self.positions

        receipt_digest: None | str | Unset
        if isinstance(self.receipt_digest, Unset):
            receipt_digest = UNSET
        else:
            receipt_digest = self.receipt_digest

        retry_after_s = self.retry_after_s

        rollout_id: None | str | Unset
        if isinstance(self.rollout_id, Unset):
            rollout_id = UNSET
        else:
            rollout_id = self.rollout_id

        source_key_id: None | str | Unset
        if isinstance(self.source_key_id, Unset):
            source_key_id = UNSET
        else:
            source_key_id = self.source_key_id

        source_key_state: None | str | Unset
        if isinstance(self.source_key_state, Unset):
            source_key_state = UNSET
        else:
            source_key_state = self.source_key_state

        stage: None | str | Unset
        if isinstance(self.stage, Unset):
            stage = UNSET
        else:
            stage = self.stage

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        else:
            state = self.state

        subscription_id: None | str | Unset
        if isinstance(self.subscription_id, Unset):
            subscription_id = UNSET
        else:
            subscription_id = self.subscription_id

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "code": code,
            "status": status,
            "title": title,
            "type": type_,
        })
        if attribute is not UNSET:
            field_dict["attribute"] = attribute
        if command is not UNSET:
            field_dict["command"] = command
        if current_generation is not UNSET:
            field_dict["currentGeneration"] = current_generation
        if current_version is not UNSET:
            field_dict["currentVersion"] = current_version
        if declared is not UNSET:
            field_dict["declared"] = declared
        if delivered_digest is not UNSET:
            field_dict["deliveredDigest"] = delivered_digest
        if delivery_id is not UNSET:
            field_dict["deliveryId"] = delivery_id
        if detail is not UNSET:
            field_dict["detail"] = detail
        if dialect is not UNSET:
            field_dict["dialect"] = dialect
        if errors is not UNSET:
            field_dict["errors"] = errors
        if etag is not UNSET:
            field_dict["etag"] = etag
        if event_id is not UNSET:
            field_dict["eventId"] = event_id
        if field is not UNSET:
            field_dict["field"] = field
        if id is not UNSET:
            field_dict["id"] = id
        if key_id is not UNSET:
            field_dict["keyId"] = key_id
        if key_state is not UNSET:
            field_dict["keyState"] = key_state
        if kind is not UNSET:
            field_dict["kind"] = kind
        if line is not UNSET:
            field_dict["line"] = line
        if operation_id is not UNSET:
            field_dict["operationId"] = operation_id
        if path is not UNSET:
            field_dict["path"] = path
        if pattern is not UNSET:
            field_dict["pattern"] = pattern
        if payload_digest is not UNSET:
            field_dict["payloadDigest"] = payload_digest
        if percent is not UNSET:
            field_dict["percent"] = percent
        if position is not UNSET:
            field_dict["position"] = position
        if positions is not UNSET:
            field_dict["positions"] = positions
        if receipt_digest is not UNSET:
            field_dict["receiptDigest"] = receipt_digest
        if retry_after_s is not UNSET:
            field_dict["retryAfterS"] = retry_after_s
        if rollout_id is not UNSET:
            field_dict["rolloutId"] = rollout_id
        if source_key_id is not UNSET:
            field_dict["sourceKeyId"] = source_key_id
        if source_key_state is not UNSET:
            field_dict["sourceKeyState"] = source_key_state
        if stage is not UNSET:
            field_dict["stage"] = stage
        if state is not UNSET:
            field_dict["state"] = state
        if subscription_id is not UNSET:
            field_dict["subscriptionId"] = subscription_id
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.json_pointer_error import JsonPointerError # noqa: PLC0415
        d = dict(src_dict)
        code = d.pop("code")

        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        attribute = d.pop("attribute", UNSET)

        command = d.pop("command", UNSET)

        current_generation = d.pop("currentGeneration", UNSET)

        current_version = d.pop("currentVersion", UNSET)

        _declared = d.pop("declared", UNSET)
        declared: list[int | str] | Unset = UNSET
        if _declared is not UNSET:
            declared = []
            for declared_item_data in _declared:
                def _parse_declared_item(data: object) -> int | str:
                    return cast(int | str, data)

                declared_item = _parse_declared_item(declared_item_data)

                declared.append(declared_item)


        def _parse_delivered_digest(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        delivered_digest = _parse_delivered_digest(d.pop("deliveredDigest", UNSET))


        def _parse_delivery_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        delivery_id = _parse_delivery_id(d.pop("deliveryId", UNSET))


        detail = d.pop("detail", UNSET)

        dialect = d.pop("dialect", UNSET)

        _errors = d.pop("errors", UNSET)
        errors: list[JsonPointerError] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = JsonPointerError.from_dict(errors_item_data)



                errors.append(errors_item)


        etag = d.pop("etag", UNSET)

        event_id = d.pop("eventId", UNSET)

        field = d.pop("field", UNSET)

        id = d.pop("id", UNSET)

        def _parse_key_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key_id = _parse_key_id(d.pop("keyId", UNSET))


        def _parse_key_state(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key_state = _parse_key_state(d.pop("keyState", UNSET))


        kind = d.pop("kind", UNSET)

        def _parse_line(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        line = _parse_line(d.pop("line", UNSET))


        def _parse_operation_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        operation_id = _parse_operation_id(d.pop("operationId", UNSET))


        path = d.pop("path", UNSET)

        pattern = d.pop("pattern", UNSET)

        payload_digest = d.pop("payloadDigest", UNSET)

        def _parse_percent(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        percent = _parse_percent(d.pop("percent", UNSET))


        position = d.pop("position", UNSET)

        def _parse_positions(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        positions = _parse_positions(d.pop("positions", UNSET))


        def _parse_receipt_digest(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        receipt_digest = _parse_receipt_digest(d.pop("receiptDigest", UNSET))


        retry_after_s = d.pop("retryAfterS", UNSET)

        def _parse_rollout_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rollout_id = _parse_rollout_id(d.pop("rolloutId", UNSET))


        def _parse_source_key_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_key_id = _parse_source_key_id(d.pop("sourceKeyId", UNSET))


        def _parse_source_key_state(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_key_state = _parse_source_key_state(d.pop("sourceKeyState", UNSET))


        def _parse_stage(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        stage = _parse_stage(d.pop("stage", UNSET))


        def _parse_state(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        state = _parse_state(d.pop("state", UNSET))


        def _parse_subscription_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subscription_id = _parse_subscription_id(d.pop("subscriptionId", UNSET))


        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        problem = cls(
            code=code,
            status=status,
            title=title,
            type_=type_,
            attribute=attribute,
            command=command,
            current_generation=current_generation,
            current_version=current_version,
            declared=declared,
            delivered_digest=delivered_digest,
            delivery_id=delivery_id,
            detail=detail,
            dialect=dialect,
            errors=errors,
            etag=etag,
            event_id=event_id,
            field=field,
            id=id,
            key_id=key_id,
            key_state=key_state,
            kind=kind,
            line=line,
            operation_id=operation_id,
            path=path,
            pattern=pattern,
            payload_digest=payload_digest,
            percent=percent,
            position=position,
            positions=positions,
            receipt_digest=receipt_digest,
            retry_after_s=retry_after_s,
            rollout_id=rollout_id,
            source_key_id=source_key_id,
            source_key_state=source_key_state,
            stage=stage,
            state=state,
            subscription_id=subscription_id,
            url=url,
        )

        return problem

