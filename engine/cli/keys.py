"""``hookproof keys list|create|rotate|promote|retire|compromise|rollback|destroy``.

Every command honours ``--json`` and the HOOKPROOF_* configuration; every transition is an
event with the actor ``cli:<user>``. No command prints key material.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from datetime import datetime
from typing import Any

from hookproof.config import Settings
from hookproof.projections.key_ring import KeyView

from ..keys import KeyRing, docs
from ..keys.ring import default_actor
from .context import Context
from .help import add_command

__all__ = ["register"]

Action = Callable[[KeyRing, argparse.Namespace, str], Awaitable[Any]]


def key_json(view: KeyView) -> dict[str, Any]:
    """camelCase, public fields only."""

    def ts(value: datetime | None) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "keyId": view.key_id,
        "algorithm": view.algorithm,
        "purpose": view.purpose,
        "subscriptionId": view.subscription_id,
        "keyGeneration": view.generation,
        "state": str(view.state),
        "maxMessageLifetime": view.max_message_lifetime_s,
        "createdAt": ts(view.created_at),
        "activatedAt": ts(view.activated_at),
        "verifyOnlyAt": ts(view.verify_only_at),
        "verifyOnlyUntil": ts(view.verify_only_until),
        "revokedAt": ts(view.revoked_at),
        "revokeReason": str(view.revoke_reason) if view.revoke_reason else None,
        "materialDestroyedAt": ts(view.material_destroyed_at),
    }


def _line(view: KeyView) -> str:
    extra = ""
    if view.verify_only_until is not None and str(view.state) == "VERIFY_ONLY":
        extra = f" until {view.verify_only_until.isoformat()}"
    if view.revoke_reason is not None:
        extra = f" ({view.revoke_reason})"
    if view.material_destroyed_at is not None:
        extra += " material destroyed"
    scope = view.scope
    return (
        f"{view.key_id}  {scope:<24} gen {view.generation:<3} {view.algorithm:<11} "
        f"{view.state}{extra}"
    )


def _print(result: Any, as_json: bool) -> None:
    if isinstance(result, KeyView):
        print(json.dumps(key_json(result)) if as_json else _line(result))
    elif isinstance(result, list):
        if as_json:
            print(json.dumps({"keys": [key_json(v) for v in result]}))
        elif not result:
            print("no keys")
        else:
            for v in result:
                print(_line(v))
    elif isinstance(result, dict):
        print(
            json.dumps(result, default=str)
            if as_json
            else "\n".join(f"{k}: {v}" for k, v in result.items())
        )
    elif result is None:
        print(json.dumps(None) if as_json else "nothing to do")


async def _list(ring: KeyRing, args: argparse.Namespace, actor: str) -> Any:
    return await ring.keys(purpose=args.purpose, subscription_id=args.subscription)


async def _create(ring: KeyRing, args: argparse.Namespace, actor: str) -> Any:
    view = await ring.ensure_active_engine_key(actor=actor)
    if view is None:
        raise_paused()
    return view


def raise_paused() -> None:
    from ..keys import NoActiveKey

    raise NoActiveKey(
        "engine keys exist but none is ACTIVE (compromised?): rotate and promote a new one"
    )


async def _rotate(ring: KeyRing, args: argparse.Namespace, actor: str) -> Any:
    view = await ring.rotate(actor=actor)
    if args.promote:
        view = await ring.promote(view.key_id, actor=actor)
    return view


async def _promote(ring: KeyRing, args: argparse.Namespace, actor: str) -> Any:
    key_id = args.key_id
    if key_id is None:
        waiting = [v for v in await ring.keys(purpose="engine") if str(v.state) == "NOT_BEFORE"]
        if not waiting:
            from hookproof.errors import NotFound

            raise NotFound(
                "no NOT_BEFORE engine key to promote; run keys rotate first", code="key_not_found"
            )
        key_id = waiting[-1].key_id
    return await ring.promote(key_id, actor=actor)


async def _retire(ring: KeyRing, args: argparse.Namespace, actor: str) -> Any:
    return await ring.retire_expired(actor=actor)


async def _compromise(ring: KeyRing, args: argparse.Namespace, actor: str) -> Any:
    report = await ring.compromise(args.key_id, actor=actor)
    from ..runtime.composition import construct_rollouts  # a compromise during a rollout pauses it

    rollouts = construct_rollouts(ring.store, ring.settings, ring, None, ring.clock)
    paused = await rollouts.on_key_compromised(args.key_id, actor=actor)
    out = asdict(report)
    return {
        "rolloutsPaused": paused,
        "keyId": out["key_id"],
        "purpose": out["purpose"],
        "subscriptionId": out["subscription_id"],
        "keyGeneration": out["generation"],
        "previousState": out["previous_state"],
        "revokedAt": report.revoked_at.isoformat(),
        "signingPaused": out["signing_paused"],
        "activeKeyId": out["active_key_id"],
        "newerKeys": list(out["newer_keys"]),
    }


async def _rollback(ring: KeyRing, args: argparse.Namespace, actor: str) -> Any:
    return await ring.rollback(args.key_id, actor=actor)


async def _destroy(ring: KeyRing, args: argparse.Namespace, actor: str) -> Any:
    return await ring.destroy(args.key_id, actor=actor)


def _handler(action: Action) -> Callable[[argparse.Namespace, Settings], Awaitable[int]]:
    async def run(args: argparse.Namespace, settings: Settings) -> int:

        async with Context(settings, sealed=True) as ctx:
            ring = ctx.keyring()
            result = await action(ring, args, args.actor or default_actor())
        _print(result, args.json)
        return 0

    return run


async def _print_states(args: argparse.Namespace, settings: Settings) -> int:
    print(docs(), end="")
    return 0


def register(subparsers: Any, add_json: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``keys ...`` to the ``hookproof`` parser."""
    keys = add_command(subparsers, "keys", help="signing keys: list, rotate, compromise, ...")
    sub = keys.add_subparsers(dest="keys_cmd", required=True)

    def cmd(
        name: str, help_: str, action: Action, key_id: str | None = None
    ) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = add_command(sub, name, help=help_)
        if key_id == "required":
            p.add_argument("key_id", metavar="KEYID")
        elif key_id == "optional":
            p.add_argument("key_id", metavar="KEYID", nargs="?")
        p.add_argument("--actor", default=None, help="recorded in the events (default cli:USER)")
        add_json(p)
        p.set_defaults(handler=_handler(action))
        return p

    p = cmd("list", "every key with its state and deadlines (never material)", _list)
    p.add_argument("--purpose", choices=["engine", "subscription"], default=None)
    p.add_argument("--subscription", default=None, help="only this subscription's secrets")
    cmd("create", "create the first ACTIVE engine key if there is none", _create)
    from .rotation import cmd_compromise, cmd_rotate

    p = cmd(
        "rotate",
        "rotate the engine key: publish next, challenge every subscription with "
        "it, switch signing, old key VERIFY_ONLY, suspend what did not prove it",
        _rotate,
    )
    p.add_argument("--promote", action="store_true", help="(with --publish-only) promote at once")
    p.add_argument(
        "--publish-only", action="store_true", help="only publish the next key as NOT_BEFORE"
    )
    p.set_defaults(handler=cmd_rotate)
    cmd(
        "promote",
        "NOT_BEFORE key -> ACTIVE (default: the newest); previous -> VERIFY_ONLY",
        _promote,
        "optional",
    )
    cmd("retire", "VERIFY_ONLY keys past their deadline -> REVOKED (retired)", _retire)
    p = cmd(
        "compromise",
        "revoke KEYID at once; signing with it stops; suspend every "
        "subscription that has not proved a newer key",
        _compromise,
        "required",
    )
    p.set_defaults(handler=cmd_compromise)
    cmd("rollback", "back to a VERIFY_ONLY key never revoked", _rollback, "required")
    cmd("destroy", "erase a REVOKED key's material (crypto-shredding)", _destroy, "required")
    p = add_command(sub, "states", help="the key state machine (mermaid + table)")
    p.set_defaults(handler=_print_states)
