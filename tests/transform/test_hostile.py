"""Hostile scripts (issue 53): each one is stopped by its bound and reported with a stable kind,
and the sandbox answers the next run correctly afterwards (on the same worker, or on the one that
replaced it). Nothing here reaches outside the sandbox: it has no I/O at all."""

from __future__ import annotations

import asyncio
import time

import pytest

from hookproof.engine.transform import (
    TRANSFORMATION_FAILED,
    Bounds,
    Failure,
    FailureKind,
    Output,
    Sandbox,
)
from tests.transform.conftest import webhook

IDENTITY = "function handler(webhook) { webhook.payload.seen = true; return webhook; }"


async def still_works(sandbox: Sandbox) -> None:
    """The run after a hostile one is an ordinary, correct run."""
    result = await sandbox.run(IDENTITY, webhook())
    assert isinstance(result, Output), result
    assert result.payload == b'{"id":"evt_1","seen":true,"user":{"name":"Ada"}}'


async def fails(sandbox: Sandbox, code: str, kind: FailureKind) -> Failure:
    result = await sandbox.run(code, webhook())
    assert isinstance(result, Failure), result
    assert result.kind is kind, result
    assert result.code == TRANSFORMATION_FAILED
    assert result.digests.output is None
    assert len(result.message) <= sandbox.bounds.message_chars
    await still_works(sandbox)
    return result


async def test_an_endless_loop_runs_out_of_fuel(sandbox: Sandbox) -> None:
    result = await fails(sandbox, "function handler(w) { while (true) {} }", FailureKind.FUEL)
    assert result.fuel_used >= sandbox.bounds.fuel


async def test_an_endless_loop_at_the_top_level_runs_out_of_fuel(sandbox: Sandbox) -> None:
    await fails(sandbox, "for (;;) {}\nfunction handler(w) { return w; }", FailureKind.FUEL)


async def test_the_wall_clock_cap_stops_a_run_the_fuel_would_allow() -> None:
    box = Sandbox(Bounds(fuel=10**12, timeout_s=0.2), workers=1)
    try:
        await box.start()
        started = time.monotonic()
        result = await box.run("function handler(w) { for (;;) {} }", webhook())
        took = time.monotonic() - started
        assert isinstance(result, Failure) and result.kind is FailureKind.TIMEOUT
        assert took < 3.0  # stopped near 0.2 s, not stalled (generous: the machine is shared)
        await still_works(box)
    finally:
        box.close()


async def test_deep_recursion_is_a_memory_failure(sandbox: Sandbox) -> None:
    code = "function handler(w) { function f(n) { return f(n + 1) + 1; } return f(0); }"
    await fails(sandbox, code, FailureKind.MEMORY)


async def test_recursion_the_script_catches_still_fails_or_completes_bounded(
    sandbox: Sandbox,
) -> None:
    code = (
        "function handler(w) { function f(n) { return f(n + 1) + 1; }"
        " try { f(0); } catch (e) { w.payload = 'caught'; } return w; }"
    )
    result = await sandbox.run(code, webhook())
    # QuickJS in WebAssembly has no catchable stack check: the C stack runs out and traps
    assert isinstance(result, Failure) and result.kind is FailureKind.MEMORY
    await still_works(sandbox)


async def test_array_growth_is_stopped(sandbox: Sandbox) -> None:
    code = "function handler(w) { const a = []; for (;;) a.push({ n: a.length }); }"
    result = await sandbox.run(code, webhook())
    # the heap cap or the fuel, whichever comes first; never the caller's memory
    assert isinstance(result, Failure) and result.kind in {FailureKind.MEMORY, FailureKind.FUEL}
    await still_works(sandbox)


@pytest.mark.parametrize(
    "allocation",
    ["new ArrayBuffer(256 * 1024 * 1024)", "new Float64Array(50000000)", "'x'.repeat(300000000)"],
)
async def test_one_big_allocation_is_a_memory_failure(sandbox: Sandbox, allocation: str) -> None:
    await fails(
        sandbox, f"function handler(w) {{ const a = {allocation}; return w; }}", FailureKind.MEMORY
    )


async def test_string_doubling_is_a_memory_failure(sandbox: Sandbox) -> None:
    code = (
        "function handler(w) { let s = 'x'; for (;;) { s = s + s; s.charCodeAt(s.length - 1); } }"
    )
    await fails(sandbox, code, FailureKind.MEMORY)


async def test_a_huge_output_is_refused() -> None:
    box = Sandbox(Bounds(output_bytes=64 * 1024), workers=1)
    try:
        code = "function handler(w) { w.payload = 'x'.repeat(100 * 1024); return w; }"
        result = await fails(box, code, FailureKind.OUTPUT_TOO_LARGE)
        assert "cap" in result.message
        fits = await box.run(
            "function handler(w) { w.payload = 'x'.repeat(60 * 1024); return w; }", webhook()
        )
        assert isinstance(fits, Output) and len(fits.payload) == 60 * 1024 + 2
    finally:
        box.close()


@pytest.mark.parametrize(
    "reach",
    [
        "fetch('http://127.0.0.1:9/')",
        "new XMLHttpRequest()",
        "require('fs')",
        "require('child_process')",
        "std.open('/etc/passwd', 'r')",
        "os.open('/etc/passwd', 0)",
        "new WebSocket('ws://127.0.0.1:9/')",
        "Deno.readTextFileSync('/etc/passwd')",
        "process.env",
    ],
)
async def test_no_host_file_or_process_is_reachable(sandbox: Sandbox, reach: str) -> None:
    result = await fails(
        sandbox, f"function handler(w) {{ {reach}; return w; }}", FailureKind.THROW
    )
    assert "ReferenceError" in result.message


async def test_the_global_object_has_no_io(sandbox: Sandbox) -> None:
    code = """function handler(w) {
      w.payload = ['fetch', 'XMLHttpRequest', 'require', 'std', 'os', 'console', 'print',
        'setTimeout', 'Worker', 'process', 'scriptArgs', 'bjson'].filter((n) => n in globalThis);
      return w;
    }"""
    result = await sandbox.run(code, webhook())
    assert isinstance(result, Output) and result.payload == b"[]"


async def test_a_static_import_is_a_syntax_error(sandbox: Sandbox) -> None:
    code = "import fs from 'fs';\nfunction handler(w) { return w; }"
    result = await fails(sandbox, code, FailureKind.SYNTAX)
    assert result.message.startswith("SyntaxError")


async def test_a_dynamic_import_loads_nothing(sandbox: Sandbox) -> None:
    code = """function handler(w) {
      const p = import('fs');
      w.payload = { promise: typeof p.then };
      return w;
    }"""
    result = await sandbox.run(code, webhook())
    # the promise can never settle into a module: there is no module loader and no job runs
    assert isinstance(result, Output) and result.payload == b'{"promise":"function"}'
    await still_works(sandbox)


async def test_an_async_handler_is_invalid_output(sandbox: Sandbox) -> None:
    await fails(sandbox, "async function handler(w) { return w; }", FailureKind.INVALID_OUTPUT)


async def test_proc_exit_through_the_global_object_is_impossible(sandbox: Sandbox) -> None:
    # no std module: the only exit is returning; and the caller survives anything else
    result = await sandbox.run("function handler(w) { return w; }; quit();", webhook())
    assert isinstance(result, Failure) and result.kind is FailureKind.THROW


async def test_prototype_pollution_does_not_carry_to_the_next_run(sandbox: Sandbox) -> None:
    polluter = """
      Object.prototype.injected = 'from an earlier run';
      Array.prototype.push = function () { return 0; };
      JSON.stringify = function () { return '{"ok":{"payload":"forged"}}'; };
      globalThis.leftover = 42;
      Math.random = () => 0.5;
      function handler(w) { w.payload = { injected: ({}).injected }; return w; }
    """
    first = await sandbox.run(polluter, webhook())
    assert isinstance(first, Output)
    assert first.payload == b'{"injected":"from an earlier run"}'  # the run sees its own change
    probe = """function handler(w) {
      const a = []; a.push(1);
      w.payload = { injected: ({}).injected === undefined, push: a.length,
        leftover: typeof leftover, stringify: JSON.stringify({ a: 1 }),
        random: Math.random() !== 0.5 };
      return w;
    }"""
    # every worker, not only the one that ran the polluter
    for _ in range(4):
        result = await sandbox.run(probe, webhook())
        assert isinstance(result, Output), result
        expected = b'{"injected":true,"leftover":"undefined","push":1,"random":true,"stringify":"{\\"a\\":1}"}'
        assert result.payload == expected


async def test_a_syntax_error_is_reported_with_its_line(sandbox: Sandbox) -> None:
    code = "function handler(w) {\n  const x = ;\n  return w;\n}"
    result = await fails(sandbox, code, FailureKind.SYNTAX)
    assert result.message.startswith("SyntaxError")
    assert result.line == 2


async def test_a_throw_is_reported_with_the_scripts_message_and_line(sandbox: Sandbox) -> None:
    code = "function handler(w) {\n  const n = 1;\n  throw new RangeError('amount ' + n + ' too small');\n}"
    result = await fails(sandbox, code, FailureKind.THROW)
    assert result.message == "RangeError: amount 1 too small"
    assert result.line == 3
    error = result.to_error()
    problem = error.to_problem()
    assert problem["code"] == "transformation_failed" and problem["kind"] == "throw"
    assert problem["line"] == 3 and problem["status"] == 422


async def test_a_long_message_is_bounded(sandbox: Sandbox) -> None:
    result = await fails(
        sandbox, "function handler(w) { throw new Error('y'.repeat(100000)); }", FailureKind.THROW
    )
    assert len(result.message) == sandbox.bounds.message_chars


async def test_a_thrown_non_error_is_described(sandbox: Sandbox) -> None:
    result = await fails(
        sandbox, "function handler(w) { throw 'plain string'; }", FailureKind.THROW
    )
    assert result.message.endswith("plain string")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("return 5;", "number"),
        ("return 'text';", "string"),
        ("return null;", "null"),
        ("return [w];", "an array"),
        ("", "undefined"),
    ],
)
async def test_a_handler_that_returns_a_non_object_is_invalid_output(
    sandbox: Sandbox, body: str, why: str
) -> None:
    result = await fails(sandbox, f"function handler(w) {{ {body} }}", FailureKind.INVALID_OUTPUT)
    assert why in result.message


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ("w.url = 'https://elsewhere.example/';", "webhook.url"),
        ("w.url = '//elsewhere.example/x';", "webhook.url"),
        ("w.url = '/a b';", "webhook.url"),
        ("w.url = 7;", "webhook.url"),
        ("w.method = 'DELETE';", "webhook.method"),
        ("w.cancel = 'yes';", "webhook.cancel"),
        ("delete w.payload;", "webhook.payload"),
        ("w.payload = undefined;", "webhook.payload"),
    ],
)
async def test_a_webhook_object_of_the_wrong_shape_is_invalid_output(
    sandbox: Sandbox, change: str, field: str
) -> None:
    result = await fails(
        sandbox, f"function handler(w) {{ {change} return w; }}", FailureKind.INVALID_OUTPUT
    )
    assert field in result.message


async def test_a_cyclic_payload_is_invalid_output(sandbox: Sandbox) -> None:
    code = "function handler(w) { const a = {}; a.self = a; w.payload = a; return w; }"
    await fails(sandbox, code, FailureKind.INVALID_OUTPUT)


@pytest.mark.parametrize(
    "code",
    [
        "function handle(webhook) { return webhook; }",
        "const handler = 5;",
        "",
    ],
)
async def test_a_missing_handler_is_reported(sandbox: Sandbox, code: str) -> None:
    result = await fails(sandbox, code, FailureKind.SYNTAX)
    assert "handler" in result.message


async def test_code_over_the_size_cap_is_refused_without_running(sandbox: Sandbox) -> None:
    code = "function handler(w) { return w; }\n//" + "x" * sandbox.bounds.code_bytes
    result = await sandbox.run(code, webhook())
    assert isinstance(result, Failure) and result.kind is FailureKind.SYNTAX
    assert result.fuel_used == 0 and "cap" in result.message


async def test_a_hostile_run_does_not_delay_the_others() -> None:
    """One worker spins on an endless loop up to its bound (here the 1.5 s wall clock); the event
    loop stays responsive and the runs on the other worker complete, each long before it."""
    sandbox = Sandbox(Bounds(fuel=10**12, timeout_s=1.5), workers=2)
    await sandbox.start()
    try:
        await hostile_beside_others(sandbox)
    finally:
        sandbox.close()


async def hostile_beside_others(sandbox: Sandbox) -> None:
    hostile = asyncio.ensure_future(sandbox.run("function handler(w) { for (;;) {} }", webhook()))
    await asyncio.sleep(0.05)
    lags: list[float] = []

    async def heartbeat() -> None:
        while not hostile.done():
            before = time.monotonic()
            await asyncio.sleep(0.01)
            lags.append(time.monotonic() - before - 0.01)

    beat = asyncio.ensure_future(heartbeat())
    latencies = []
    for _ in range(20):
        if hostile.done():
            break
        started = time.monotonic()
        result = await sandbox.run(IDENTITY, webhook())
        latencies.append(time.monotonic() - started)
        assert isinstance(result, Output)
    outcome = await hostile
    await beat
    assert isinstance(outcome, Failure) and outcome.kind is FailureKind.TIMEOUT
    assert latencies, "the hostile run ended before any other run was tried"
    # each ordinary run is far inside the hostile's own bound
    assert max(latencies) < sandbox.bounds.timeout_s / 2
    assert max(lags, default=0.0) < 0.5


async def test_a_rope_past_the_longest_string_is_a_memory_failure(sandbox: Sandbox) -> None:
    # concatenation builds ropes: the length limit can come before the heap limit
    await fails(
        sandbox, "function handler(w) { let s = 'x'; for (;;) s = s + s; }", FailureKind.MEMORY
    )
