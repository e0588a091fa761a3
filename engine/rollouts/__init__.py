"""Rollouts of a signing change (``rollout-<id>`` streams): shadow, internal, cutover."""

from .machine import RolloutView, SigningPlan, bucket_of, plan_signing

__all__ = ["RolloutView", "SigningPlan", "bucket_of", "plan_signing"]
