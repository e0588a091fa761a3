"""``hookproof rollout create|advance|pause|resume|rollback|status``: rollouts of a signing
change from the command line (the same service and events as ``/v1/rollouts``)."""

from __future__ import annotations

import argparse
import getpass
import json
from collections.abc import Awaitable, Callable
from typing import Any

from hookproof.config import Settings

from ..rollouts.machine import KEY_TARGET, PROFILE_TARGET, RolloutView
from ..rollouts.service import RolloutService
from .context import Context
from .help import add_command

__all__ = ["register", "stage_table"]

Action = Callable[[RolloutService, argparse.Namespace, str], Awaitable[RolloutView | None]]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.2%}"


def stage_table(view: RolloutView, figures: dict[str, Any]) -> list[str]:
    """A rollout and its figures per stage, as printed by ``rollout status`` and the demo."""
    cut = figures["cutover"]
    stage = f"{view.stage} {view.percent}%" if view.stage == "CUTOVER" else view.stage
    lines = [
        f"rollout {view.rollout_id}: {view.target_kind} -> {view.target}; {stage}; {view.state}"
        + (f" ({view.pause_reason})" if view.pause_reason else ""),
        f"  {'stage':<10} {'figures'}",
        f"  {'SHADOW':<10} checked {figures['shadow']['checked']}, "
        f"mismatches {figures['shadow']['mismatches']}",
        f"  {'INTERNAL':<10} dual-signed {figures['internal']['dualSigned']}",
        f"  {'CUTOVER':<10} switched {cut['switched']}/{cut['covered']}, "
        f"acceptance {_pct(cut['acceptance'])} over {cut['decidedAttempts']}, "
        f"baseline {_pct(cut['baselineAcceptance'])} over {cut['baselineAttempts']}",
    ]
    return lines


async def _create(svc: RolloutService, args: argparse.Namespace, actor: str) -> RolloutView:
    if (args.profile is None) == (args.key is None):
        from hookproof.errors import ValidationError

        raise ValidationError("give exactly one of --profile or --key", field="target")
    subs = None if args.subscriptions == "all" else [s for s in args.subscriptions.split(",") if s]
    internal = [s for s in (args.internal or "").split(",") if s]
    return await svc.create(
        target_kind=PROFILE_TARGET if args.profile else KEY_TARGET,
        target=args.profile or args.key,
        subscriptions=subs,
        internal=internal,
        dual_window_s=args.dual_window,
        actor=actor,
    )


async def _advance(svc: RolloutService, args: argparse.Namespace, actor: str) -> RolloutView:
    return await svc.advance(args.id, args.stage, args.percent, actor=actor)


async def _pause(svc: RolloutService, args: argparse.Namespace, actor: str) -> RolloutView:
    return await svc.pause(args.id, actor=actor)


async def _resume(svc: RolloutService, args: argparse.Namespace, actor: str) -> RolloutView:
    return await svc.resume(args.id, actor=actor)


async def _rollback(svc: RolloutService, args: argparse.Namespace, actor: str) -> RolloutView:
    return await svc.rollback(args.id, actor=actor)


async def _status(svc: RolloutService, args: argparse.Namespace, actor: str) -> None:
    return None


def _handler(action: Action) -> Callable[[argparse.Namespace, Settings], Awaitable[int]]:
    async def run(args: argparse.Namespace, settings: Settings) -> int:
        from ..api.rollouts import rollout_json

        actor = args.actor or f"cli:{getpass.getuser()}"
        async with Context(settings, sealed=True) as ctx:
            svc = ctx.rollouts()
            view = await action(svc, args, actor)
            ids = (
                [view.rollout_id]
                if view is not None
                else (
                    [args.id]
                    if getattr(args, "id", None)
                    else [v.rollout_id for v in await svc.all()]
                )
            )
            out = []
            for rid in ids:
                v = await svc.get(rid)
                out.append((v, await svc.figures(rid)))
        if args.json:
            docs = [rollout_json(v, f) for v, f in out]
            print(json.dumps(docs[0] if len(docs) == 1 and view is not None else {"items": docs}))
        else:
            if not out:
                print("no rollouts")
            for v, f in out:
                print("\n".join(stage_table(v, f)))
        return 0

    return run


def register(subparsers: Any, add_json: Callable[[argparse.ArgumentParser], None]) -> None:
    ro = add_command(subparsers, "rollout", help="rollouts of a signing change, stage by stage")
    sub = ro.add_subparsers(dest="rollout_cmd", required=True)

    def cmd(name: str, help_: str, action: Action, with_id: bool = True) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = add_command(sub, name, help=help_)
        if with_id:
            p.add_argument("id", metavar="ROLLOUT_ID")
        p.add_argument("--actor", default=None, help="recorded in the events (default cli:USER)")
        add_json(p)
        p.set_defaults(handler=_handler(action))
        return p

    p = cmd("create", "start a rollout at SHADOW", _create, with_id=False)
    p.add_argument("--profile", choices=["hookproof.sig.v1", "standard-webhooks.v1"])
    p.add_argument("--key", metavar="KEYID", help="target engine signing key")
    p.add_argument("--subscriptions", default="all", help='"all" or comma-separated ids')
    p.add_argument("--internal", default="", help="comma-separated ids dual-signed at INTERNAL")
    p.add_argument(
        "--dual-window",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long switched subscriptions get both signatures "
        "(default: the VERIFY_ONLY window)",
    )
    p = cmd("advance", "INTERNAL, CUTOVER --percent N (only grows), COMPLETE", _advance)
    p.add_argument("--stage", required=True, choices=["INTERNAL", "CUTOVER", "COMPLETE"])
    p.add_argument("--percent", type=int, default=None)
    cmd("pause", "pause (signing stays as it is; no stage change)", _pause)
    cmd("resume", "resume a paused rollout", _resume)
    cmd(
        "rollback",
        "back to the previous profile/key while its key is ACTIVE or VERIFY_ONLY",
        _rollback,
    )
    p = add_command(sub, "status", help="stage, state and figures per stage")
    p.add_argument("id", metavar="ROLLOUT_ID", nargs="?")
    p.add_argument("--actor", default=None)
    add_json(p)
    p.set_defaults(handler=_handler(_status))
