"""Exceptions raised by paimon_c, one per libpaimon status code (include/paimon/error.h).

Each carries the library's one-line message (naming the file, option or column at fault)
and `code`, the libpaimon status number. The classes also derive from the matching
built-in exception (ValueError, OSError, ...) so generic handlers work.
"""


class PaimonError(Exception):
    """Base class of every error paimon_c raises for a libpaimon status."""

    code = None

    def __init__(self, message="", code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class InvalidArgumentError(PaimonError, ValueError):
    code = 1


class PaimonIOError(PaimonError, OSError):
    code = 2

    def __init__(self, message="", code=None):
        PaimonError.__init__(self, message, code)

    def __str__(self):
        return self.message


class CorruptError(PaimonError):
    code = 3


class NotFoundError(PaimonError, LookupError):
    code = 4


class UnsupportedError(PaimonError, NotImplementedError):
    code = 5


class OutOfMemoryError(PaimonError, MemoryError):
    code = 6


class ConflictError(PaimonError):
    """A concurrent change won; nothing of the call was published (safe to retry or abort)."""

    code = 7


class AlreadyExistsError(ConflictError):
    """The database, table or tag to create exists already."""


class InternalError(PaimonError, RuntimeError):
    code = 8


class CommitOutcomeUnknownError(PaimonError):
    """The commit may or may not have been published: never abort its messages; commit
    them again with the same commit user and identifier (published at most once)."""

    code = 9


_BY_CODE = {c.code: c for c in (InvalidArgumentError, PaimonIOError, CorruptError, NotFoundError, UnsupportedError,
                                OutOfMemoryError, ConflictError, InternalError, CommitOutcomeUnknownError)}


def _make_error(message, code):
    cls = _BY_CODE.get(code, PaimonError)
    if cls is ConflictError and ("already exists" in message or "exists already" in message):
        cls = AlreadyExistsError
    return cls(message, code)
