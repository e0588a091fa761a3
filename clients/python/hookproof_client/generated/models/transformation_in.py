from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.transformation_in_language import TransformationInLanguage






T = TypeVar("T", bound="TransformationIn")



@_attrs_define
class TransformationIn:
    """ ``function handler(webhook)`` (the Svix contract) in JavaScript, run in the sandbox
    before each attempt is signed.

        Attributes:
            code (str):
            language (TransformationInLanguage):
     """

    code: str
    language: TransformationInLanguage





    def to_dict(self) -> dict[str, Any]:
        code = self.code

        language = self.language.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "code": code,
            "language": language,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        language = TransformationInLanguage(d.pop("language"))




        transformation_in = cls(
            code=code,
            language=language,
        )

        return transformation_in

