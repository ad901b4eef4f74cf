"""Exceptions raised by sqlgrade.

A bad *prediction* is never an exception: it is a verdict with reward 0 and a failure reason.
Exceptions are for bad input (a missing database, a malformed request), for a backend that is
missing or cannot do what was asked, and for an unreachable or overloaded server. Every message is
one line, like the CLI's ``sqlgrade: <file>: <message>``.

All classes take one message argument, so they pickle (process pools re-raise them in the parent).
"""

from __future__ import annotations

__all__ = [
    "SqlgradeError",
    "InputError",
    "GoldError",
    "BackendUnavailable",
    "BackendUnsupported",
    "ServerError",
    "ServerUnavailable",
    "ServerBusy",
    "ServerTimeout",
]


class SqlgradeError(Exception):
    """Base class of every sqlgrade exception."""


class InputError(SqlgradeError, ValueError):
    """Bad input: a missing database, a missing gold, a malformed field or request.

    The message is the one line the CLI and ``sqlgrade serve`` (HTTP 400) give for the same input.
    """


class GoldError(SqlgradeError, AssertionError):
    """The gold query failed or timed out (``sqlgrade.compat`` only).

    The official test-suite ``eval_exec_match`` asserts that the gold executes; this subclass of
    AssertionError keeps harnesses that catch that assertion working.
    """


class BackendUnavailable(SqlgradeError, ImportError):
    """No backend: the native module ``sqlgrade._native`` is not built and no server is configured."""


class BackendUnsupported(SqlgradeError, NotImplementedError):
    """The selected backend cannot do this (for example ``execute()`` on a server without /execute)."""


class ServerError(SqlgradeError, RuntimeError):
    """``sqlgrade serve`` answered with an unexpected status (500) or an unreadable body."""


class ServerUnavailable(ServerError, ConnectionError):
    """The server cannot be reached (connection refused, reset, or closed) after the retries."""


class ServerBusy(ServerError):
    """The server kept answering 503 (queue full) for longer than the retry budget."""


class ServerTimeout(ServerError, TimeoutError):
    """No reply from the server within the HTTP timeout."""
