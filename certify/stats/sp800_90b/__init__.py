"""NIST SP 800-90B: entropy-source assessment (non-IID estimators, IID tests, restart tests).

``read_samples`` / ``prepare`` load samples; ``assess_non_iid`` runs the ten estimators of
section 6.3 and gives H_original, H_bitstring and the assessed min-entropy per sample;
``assess_iid`` runs the IID tests of 5.1 / 5.2 and the MCV estimate; ``restart_tests`` the
3.1.4 restart sanity check and validation; ``assess_file`` all of it for ``certify entropy``.
"""

from __future__ import annotations

from .assessment import assess_file, health_cutoffs
from .estimators import Estimate
from .iid import IidResult, IidTest, assess_iid, chi_square_tests, lrs_test, permutation_tests
from .non_iid import TrackResult, assess_non_iid, run_estimators
from .restart import RestartResult, restart_tests
from .samples import (MIN_SAMPLES, EntropyInputError, Samples, prepare, read_samples,
                      to_bitstring)

__all__ = ["assess_file", "health_cutoffs", "IidResult", "IidTest", "assess_iid", "chi_square_tests", "lrs_test",
           "permutation_tests", "RestartResult", "restart_tests", "Estimate", "TrackResult", "assess_non_iid",
           "run_estimators", "MIN_SAMPLES", "EntropyInputError", "Samples", "prepare", "read_samples", "to_bitstring"]
