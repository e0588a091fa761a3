"""Signing keys: the transition table, material at rest, the ring service, the JWKS."""

from .errors import (
    KeyMaterialUnavailable,
    KeyNotFound,
    KeyTransitionForbidden,
    MasterKeyInvalid,
    NoActiveKey,
)
from .jwks import JWKS_PATH, build_jwks
from .machine import TRANSITIONS, Windows, decide, docs
from .material import MaterialBox, load_master_key
from .ring import CompromiseReport, KeyRing, NewSecret, RingResolver, new_key_id

__all__ = [
    "JWKS_PATH",
    "TRANSITIONS",
    "CompromiseReport",
    "KeyMaterialUnavailable",
    "KeyNotFound",
    "KeyRing",
    "KeyTransitionForbidden",
    "MasterKeyInvalid",
    "MaterialBox",
    "NewSecret",
    "NoActiveKey",
    "RingResolver",
    "Windows",
    "build_jwks",
    "decide",
    "docs",
    "load_master_key",
    "new_key_id",
]
