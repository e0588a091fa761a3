from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast
import datetime






T = TypeVar("T", bound="CloudEventIn")



@_attrs_define
class CloudEventIn:
    """ A CloudEvent 1.0 in the JSON event format, as POST /v1/events takes it (Content-Type application/cloudevents+json;
    an array of these with application/cloudevents-batch+json). Mapped to a hookproof event as schemas/cloudevents.md
    says: id -> eventId, type -> topic, subject -> aggregateId (absent: the id), time -> occurredAt, aggregateversion ->
    aggregateVersion (absent: 0), eventversion -> version (absent: "1.0"), consumerid -> consumerId, data -> payload;
    source and the other extensions are kept. A null attribute is absent. Refusals: 400 cloudevent_invalid (breaks the
    CloudEvents spec) or cloudevent_unsupported (data that is not JSON, no time), with the attribute named in the
    problem's attribute member.

        Attributes:
            id (str): The eventId (idempotency per tenant, as for a plain event).
            source (str): A URI-reference; kept with the event.
            specversion (Literal['1.0']):
            time (datetime.datetime): RFC 3339: the occurredAt (required here: it is part of the signed body).
            type_ (str): The topic.
            aggregateversion (int | str | Unset): The aggregateVersion (absent: 0); an Integer, or its decimal text.
            consumerid (str | Unset): The consumerId: planned only for that consumer's subscriptions.
            data (Any | Unset): The payload: any JSON value (absent: null).
            datacontenttype (str | Unset): A JSON media type (application/json, text/json, or any type with a +json suffix
                such as application/vnd.acme+json) when given.
            dataschema (str | Unset): Checked, not kept (a delivered CloudEvent carries the catalogue's schema URL).
            eventversion (str | Unset): The version "MAJOR.MINOR" (absent: "1.0").
            subject (str | Unset): The aggregateId (absent: the id).
     """

    id: str
    source: str
    specversion: Literal['1.0']
    time: datetime.datetime
    type_: str
    aggregateversion: int | str | Unset = UNSET
    consumerid: str | Unset = UNSET
    data: Any | Unset = UNSET
    datacontenttype: str | Unset = UNSET
    dataschema: str | Unset = UNSET
    eventversion: str | Unset = UNSET
    subject: str | Unset = UNSET
    additional_properties: dict[str, bool | int | None | str] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        source = self.source

        specversion = self.specversion

        time = self.time.isoformat()

        type_ = self.type_

        aggregateversion: int | str | Unset
        if isinstance(self.aggregateversion, Unset):
            aggregateversion = UNSET
        else:
            aggregateversion = self.aggregateversion

        consumerid = self.consumerid

        data = self.data

        datacontenttype = self.datacontenttype

        dataschema = self.dataschema

        eventversion = self.eventversion

        subject = self.subject


        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            
            field_dict[prop_name] = prop

        field_dict.update({
            "id": id,
            "source": source,
            "specversion": specversion,
            "time": time,
            "type": type_,
        })
        if aggregateversion is not UNSET:
            field_dict["aggregateversion"] = aggregateversion
        if consumerid is not UNSET:
            field_dict["consumerid"] = consumerid
        if data is not UNSET:
            field_dict["data"] = data
        if datacontenttype is not UNSET:
            field_dict["datacontenttype"] = datacontenttype
        if dataschema is not UNSET:
            field_dict["dataschema"] = dataschema
        if eventversion is not UNSET:
            field_dict["eventversion"] = eventversion
        if subject is not UNSET:
            field_dict["subject"] = subject

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        source = d.pop("source")

        specversion = cast(Literal['1.0'] , d.pop("specversion"))
        if specversion != '1.0':
            raise ValueError(f"specversion must match const '1.0', got '{specversion}'")

        time = datetime.datetime.fromisoformat(d.pop("time"))




        type_ = d.pop("type")

        def _parse_aggregateversion(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        aggregateversion = _parse_aggregateversion(d.pop("aggregateversion", UNSET))


        consumerid = d.pop("consumerid", UNSET)

        data = d.pop("data", UNSET)

        datacontenttype = d.pop("datacontenttype", UNSET)

        dataschema = d.pop("dataschema", UNSET)

        eventversion = d.pop("eventversion", UNSET)

        subject = d.pop("subject", UNSET)

        cloud_event_in = cls(
            id=id,
            source=source,
            specversion=specversion,
            time=time,
            type_=type_,
            aggregateversion=aggregateversion,
            consumerid=consumerid,
            data=data,
            datacontenttype=datacontenttype,
            dataschema=dataschema,
            eventversion=eventversion,
            subject=subject,
        )


        additional_properties = {}
        for prop_name, prop_dict in d.items():
            def _parse_additional_property(data: object) -> bool | int | None | str:
                if data is None:
                    return data
                return cast(bool | int | None | str, data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        cloud_event_in.additional_properties = additional_properties
        return cloud_event_in

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> bool | int | None | str:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: bool | int | None | str) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
