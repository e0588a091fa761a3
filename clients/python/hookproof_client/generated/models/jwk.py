from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.jwk_alg import JwkAlg
from ..models.jwk_crv import JwkCrv
from ..models.jwk_kty import JwkKty
from ..models.jwk_use import JwkUse
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Jwk")



@_attrs_define
class Jwk:
    """ A public Ed25519 key as a JWK (RFC 8037): ``kty`` OKP, ``crv`` Ed25519, ``x`` the
    key (base64url); the engine's keys add ``kid``, ``alg``, ``use``, their ``state``,
    ``keyGeneration``, ``maxMessageLifetime`` (seconds), ``nbf`` and ``exp``.

        Attributes:
            crv (JwkCrv):
            kty (JwkKty):
            x (str):
            alg (JwkAlg | Unset):
            exp (int | Unset):
            key_generation (int | Unset):
            kid (str | Unset):
            max_message_lifetime (float | int | None | Unset):
            nbf (int | Unset):
            state (str | Unset):
            use (JwkUse | Unset):
     """

    crv: JwkCrv
    kty: JwkKty
    x: str
    alg: JwkAlg | Unset = UNSET
    exp: int | Unset = UNSET
    key_generation: int | Unset = UNSET
    kid: str | Unset = UNSET
    max_message_lifetime: float | int | None | Unset = UNSET
    nbf: int | Unset = UNSET
    state: str | Unset = UNSET
    use: JwkUse | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        crv = self.crv.value

        kty = self.kty.value

        x = self.x

        alg: str | Unset = UNSET
        if not isinstance(self.alg, Unset):
            alg = self.alg.value


        exp = self.exp

        key_generation = self.key_generation

        kid = self.kid

        max_message_lifetime: float | int | None | Unset
        if isinstance(self.max_message_lifetime, Unset):
            max_message_lifetime = UNSET
        else:
            max_message_lifetime = self.max_message_lifetime

        nbf = self.nbf

        state = self.state

        use: str | Unset = UNSET
        if not isinstance(self.use, Unset):
            use = self.use.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "crv": crv,
            "kty": kty,
            "x": x,
        })
        if alg is not UNSET:
            field_dict["alg"] = alg
        if exp is not UNSET:
            field_dict["exp"] = exp
        if key_generation is not UNSET:
            field_dict["keyGeneration"] = key_generation
        if kid is not UNSET:
            field_dict["kid"] = kid
        if max_message_lifetime is not UNSET:
            field_dict["maxMessageLifetime"] = max_message_lifetime
        if nbf is not UNSET:
            field_dict["nbf"] = nbf
        if state is not UNSET:
            field_dict["state"] = state
        if use is not UNSET:
            field_dict["use"] = use

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        crv = JwkCrv(d.pop("crv"))




        kty = JwkKty(d.pop("kty"))




        x = d.pop("x")

        _alg = d.pop("alg", UNSET)
        alg: JwkAlg | Unset
        if isinstance(_alg,  Unset):
            alg = UNSET
        else:
            alg = JwkAlg(_alg)




        exp = d.pop("exp", UNSET)

        key_generation = d.pop("keyGeneration", UNSET)

        kid = d.pop("kid", UNSET)

        def _parse_max_message_lifetime(data: object) -> float | int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | int | None | Unset, data)

        max_message_lifetime = _parse_max_message_lifetime(d.pop("maxMessageLifetime", UNSET))


        nbf = d.pop("nbf", UNSET)

        state = d.pop("state", UNSET)

        _use = d.pop("use", UNSET)
        use: JwkUse | Unset
        if isinstance(_use,  Unset):
            use = UNSET
        else:
            use = JwkUse(_use)




        jwk = cls(
            crv=crv,
            kty=kty,
            x=x,
            alg=alg,
            exp=exp,
            key_generation=key_generation,
            kid=kid,
            max_message_lifetime=max_message_lifetime,
            nbf=nbf,
            state=state,
            use=use,
        )

        return jwk

