"""``hookproof keys rotate`` and ``keys compromise`` as whole flows over keys and subscriptions."""

from __future__ import annotations

import argparse
import getpass
import json

from hookproof.config import Settings

from .cli_context import Context

__all__ = ["cmd_compromise", "cmd_rotate"]


def _actor(args: argparse.Namespace) -> str:
    return args.actor or f"cli:{getpass.getuser()}"


async def _with_engine(settings: Settings):  # type: ignore[no-untyped-def]
    from .daemon import build_engine

    ctx = Context(settings)
    await ctx.__aenter__()
    assert ctx.pool is not None
    engine = await build_engine(settings, ctx.pool)
    return ctx, engine


async def cmd_rotate(args: argparse.Namespace, settings: Settings) -> int:

    ctx, engine = await _with_engine(settings)
    try:
        if args.publish_only:
            view = await engine.services.keyring.rotate(actor=_actor(args))
            out = {"keyId": view.key_id, "keyGeneration": view.generation, "state": str(view.state)}
        else:
            out = await engine.services.rotation.rotate_engine_key(actor=_actor(args))
    finally:
        await engine.close()
        await ctx.__aexit__(None, None, None)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")
    return 0


async def cmd_compromise(args: argparse.Namespace, settings: Settings) -> int:

    ctx, engine = await _with_engine(settings)
    try:
        out = await engine.services.rotation.compromise(args.key_id, actor=_actor(args))
    finally:
        await engine.close()
        await ctx.__aexit__(None, None, None)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")
    return 0
