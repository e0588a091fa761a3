"""Typed errors of the key ring. Messages carry key ids and states, never material."""

from __future__ import annotations

from hookproof.errors import ConfigurationError, ConflictError, HookproofError, NotFound

__all__ = [
    "KeyMaterialUnavailable",
    "KeyNotFound",
    "KeyTransitionForbidden",
    "MasterKeyInvalid",
    "MasterKeyMismatch",
    "MasterKeyUnset",
    "NoActiveKey",
]


class KeyTransitionForbidden(ConflictError):
    """A command the transition table (or one of its guards) does not allow.

    Codes: ``key_transition_forbidden`` (not in the table), ``rollback_refused``,
    ``retire_too_early``, ``destroy_refused``, ``active_key_exists``,
    ``generation_not_newer``, ``wrong_key_scope``.
    """

    code = "key_transition_forbidden"
    title = "Key transition forbidden"


class KeyNotFound(NotFound):
    code = "key_not_found"
    title = "Key not found"


class NoActiveKey(HookproofError):
    """No ACTIVE key in a scope (e.g. after a compromise): signing is paused, never degraded."""

    code = "no_active_key"
    status = 503
    title = "No active signing key"


class MasterKeyInvalid(HookproofError):
    """The master key is missing, malformed, the wrong size, or its file is not private.

    Codes: ``master_key_invalid``, ``master_key_file_insecure``.
    """

    code = "master_key_invalid"
    status = 500
    title = "Master key invalid"


class MasterKeyUnset(ConfigurationError):
    """An external database and no master key setting: the key is never looked for (or
    created) in the working directory. The command exits with EX_CONFIG."""

    code = "master_key_unset"
    title = "Master key not set"


class MasterKeyMismatch(ConfigurationError):
    """The master key does not open the database's sealed material (its check value, or
    sealed rows older than the check value). The command exits with EX_CONFIG, the database
    untouched. Detail: the expected key's fingerprint and where the key was looked for."""

    code = "master_key_mismatch"
    title = "Master key does not match the database"


class KeyMaterialUnavailable(HookproofError):
    """Key material cannot be used. Codes: ``key_material_destroyed``,
    ``key_material_undecryptable`` (wrong master key or a tampered row),
    ``key_material_missing``, ``key_revoked``."""

    code = "key_material_unavailable"
    status = 500
    title = "Key material unavailable"
