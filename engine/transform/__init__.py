"""Transformations (DESIGN.md section 17): a tenant's ``function handler(webhook)`` (the Svix
contract) run in a QuickJS-in-WebAssembly sandbox with fuel, memory, wall-clock and output
bounds, a fixed clock and seed, and a fresh state per run. docs/transformations.md."""

from hookproof.engine.transform.model import (
    TRANSFORMATION_FAILED,
    Bounds,
    Digests,
    Failure,
    FailureKind,
    Output,
    Result,
    TransformationFailed,
    TransformInput,
)
from hookproof.engine.transform.sandbox import Sandbox

__all__ = [
    "TRANSFORMATION_FAILED",
    "Bounds",
    "Digests",
    "Failure",
    "FailureKind",
    "Output",
    "Result",
    "Sandbox",
    "TransformInput",
    "TransformationFailed",
]
