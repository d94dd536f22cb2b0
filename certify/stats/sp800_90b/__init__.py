"""NIST SP 800-90B: entropy-source assessment (non-IID estimators, IID tests, restart tests).

``read_samples`` / ``prepare`` load samples; ``assess_non_iid`` runs the ten estimators of
section 6.3 and gives H_original, H_bitstring and the assessed min-entropy per sample.
"""

from __future__ import annotations

from .estimators import Estimate
from .non_iid import TrackResult, assess_non_iid, run_estimators
from .samples import MIN_SAMPLES, EntropyInputError, Samples, prepare, read_samples, to_bitstring

__all__ = ["Estimate", "TrackResult", "assess_non_iid", "run_estimators", "MIN_SAMPLES", "EntropyInputError",
           "Samples", "prepare", "read_samples", "to_bitstring"]
