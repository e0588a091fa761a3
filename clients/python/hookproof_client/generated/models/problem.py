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
    ``retryAfterS`` (429), ``state`` (a conflict with the resource's state), ``id``
    (``consumer_exists``), ``dialect``, ``path``, ``position`` (``filter_invalid``).

        Attributes:
            code (str):
            status (int):
            title (str):
            type_ (str):
            attribute (str | Unset):
            current_generation (int | Unset):
            current_version (int | Unset):
            detail (str | Unset):
            dialect (str | Unset):
            errors (list[JsonPointerError] | Unset):
            etag (str | Unset):
            event_id (str | Unset):
            field (str | Unset):
            id (str | Unset):
            path (str | Unset):
            payload_digest (str | Unset):
            position (int | Unset):
            retry_after_s (int | Unset):
            state (None | str | Unset):
     """

    code: str
    status: int
    title: str
    type_: str
    attribute: str | Unset = UNSET
    current_generation: int | Unset = UNSET
    current_version: int | Unset = UNSET
    detail: str | Unset = UNSET
    dialect: str | Unset = UNSET
    errors: list[JsonPointerError] | Unset = UNSET
    etag: str | Unset = UNSET
    event_id: str | Unset = UNSET
    field: str | Unset = UNSET
    id: str | Unset = UNSET
    path: str | Unset = UNSET
    payload_digest: str | Unset = UNSET
    position: int | Unset = UNSET
    retry_after_s: int | Unset = UNSET
    state: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.json_pointer_error import JsonPointerError # noqa: PLC0415
        code = self.code

        status = self.status

        title = self.title

        type_ = self.type_

        attribute = self.attribute

        current_generation = self.current_generation

        current_version = self.current_version

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

        path = self.path

        payload_digest = self.payload_digest

        position = self.position

        retry_after_s = self.retry_after_s

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        else:
            state = self.state


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "code": code,
            "status": status,
            "title": title,
            "type": type_,
        })
        if attribute is not UNSET:
            field_dict["attribute"] = attribute
        if current_generation is not UNSET:
            field_dict["currentGeneration"] = current_generation
        if current_version is not UNSET:
            field_dict["currentVersion"] = current_version
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
        if path is not UNSET:
            field_dict["path"] = path
        if payload_digest is not UNSET:
            field_dict["payloadDigest"] = payload_digest
        if position is not UNSET:
            field_dict["position"] = position
        if retry_after_s is not UNSET:
            field_dict["retryAfterS"] = retry_after_s
        if state is not UNSET:
            field_dict["state"] = state

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

        current_generation = d.pop("currentGeneration", UNSET)

        current_version = d.pop("currentVersion", UNSET)

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

        path = d.pop("path", UNSET)

        payload_digest = d.pop("payloadDigest", UNSET)

        position = d.pop("position", UNSET)

        retry_after_s = d.pop("retryAfterS", UNSET)

        def _parse_state(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        state = _parse_state(d.pop("state", UNSET))


        problem = cls(
            code=code,
            status=status,
            title=title,
            type_=type_,
            attribute=attribute,
            current_generation=current_generation,
            current_version=current_version,
            detail=detail,
            dialect=dialect,
            errors=errors,
            etag=etag,
            event_id=event_id,
            field=field,
            id=id,
            path=path,
            payload_digest=payload_digest,
            position=position,
            retry_after_s=retry_after_s,
            state=state,
        )

        return problem

