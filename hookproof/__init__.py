"""hookproof: a webhook delivery engine that records evidence, not a green tick.

The code lives in four layers, each a subpackage mapped from a top-level folder:
``hookproof.schemas`` (schemas/) <- ``hookproof.events`` (events/) <-
``hookproof.projections`` (projections/) <- ``hookproof.engine`` (engine/).
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
