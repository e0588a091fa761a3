from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.transformation_view_language import TransformationViewLanguage






T = TypeVar("T", bound="TransformationView")



@_attrs_define
class TransformationView:
    """ A subscription's transformation as shown: the code and its digest (hex sha-256 of the
    code's UTF-8 bytes, the one each transformed attempt records).

        Attributes:
            code (str):
            digest (str):
            language (TransformationViewLanguage):
     """

    code: str
    digest: str
    language: TransformationViewLanguage





    def to_dict(self) -> dict[str, Any]:
        code = self.code

        digest = self.digest

        language = self.language.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "code": code,
            "digest": digest,
            "language": language,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        digest = d.pop("digest")

        language = TransformationViewLanguage(d.pop("language"))




        transformation_view = cls(
            code=code,
            digest=digest,
            language=language,
        )

        return transformation_view

