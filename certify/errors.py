"""The root of every error the suite reports to a user.

The command maps these to exit codes in one place (``certify.cli``): an error that reaches a user
is one message and an exit code, never a traceback. Every module raises a subclass (its own
``SpecError``, ``FixtureError``, ``SigningError`` ... derive from one of these), so a caller that
catches ``CertifyError`` catches every refusal the suite makes.
"""

from __future__ import annotations


class CertifyError(Exception):
    """A refusal the suite explains to its user. ``exit_code`` is what the command exits with."""

    exit_code = 2


class InputError(CertifyError, ValueError):
    """Bad input: a file, field, option or number that is not what was expected (exit 2).
    The message names the file, line, field or option and what was expected."""

    exit_code = 2


class VerificationFailed(CertifyError):
    """Something that had to verify did not: a signature, a checkpoint, a report pair (exit 1).
    Raised, never returned as a flag a caller could forget to read."""

    exit_code = 1
