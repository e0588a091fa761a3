"""``hookproof keys rotate`` and ``keys compromise`` as whole flows over keys and subscriptions."""

from __future__ import annotations

import argparse
import getpass
import json
from collections.abc import Awaitable, Callable
from typing import Any

from hookproof.config import Settings

from .context import Context

__all__ = ["cmd_compromise", "cmd_rotate"]


def _actor(args: argparse.Namespace) -> str:
    return args.actor or f"cli:{getpass.getuser()}"


async def _with_engine(settings: Settings):  # type: ignore[no-untyped-def]
    ctx = Context(settings, sealed=True)
    await ctx.__aenter__()
    engine = await ctx.engine()
    return ctx, engine


async def _run(
    settings: Settings, args: argparse.Namespace, action: Callable[[Any], Awaitable[Any]]
) -> int:
    """Run ``action(engine)`` on an engine of its own and print what it returns."""
    ctx, engine = await _with_engine(settings)
    try:
        out = await action(engine)
    finally:
        await engine.close()
        await ctx.__aexit__(None, None, None)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")
    return 0


async def cmd_rotate(args: argparse.Namespace, settings: Settings) -> int:
    async def rotate(engine: Any) -> Any:
        if args.publish_only:
            view = await engine.services.keyring.rotate(actor=_actor(args))
            return {
                "keyId": view.key_id,
                "keyGeneration": view.generation,
                "state": str(view.state),
            }
        return await engine.services.rotation.rotate_engine_key(actor=_actor(args))

    return await _run(settings, args, rotate)


async def cmd_compromise(args: argparse.Namespace, settings: Settings) -> int:
    async def compromise(engine: Any) -> Any:
        return await engine.services.rotation.compromise(args.key_id, actor=_actor(args))

    return await _run(settings, args, compromise)
