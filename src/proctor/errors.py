"""proctor's exceptions. A leaf: imports nothing of proctor.

ProctorError
├── ConfigError          a bad option, model string or setting
├── DatasetError         a bad input file; names the file, line and field
├── StoreError           the run store cannot be read or written
└── ProviderError        a model call failed (never a wrong answer)
    ├── RateLimited      429; may carry the server's Retry-After
    ├── Transient        timeouts, connection errors, 5xx, malformed bodies
    ├── AuthError        401/403: retrying cannot help
    ├── BadRequest       4xx other than the above: retrying cannot help
    └── BadReply         a reply that cannot be accepted: larger than the size cap, nested
                         too deep; asking again would only fetch it again
"""

from __future__ import annotations


class ProctorError(Exception):
    """Base of every error proctor raises on purpose."""


class ConfigError(ProctorError):
    pass


class StoreError(ProctorError):
    pass


class DatasetError(ProctorError):
    def __init__(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.file = file
        self.line = line
        self.field = field
        self.message = message
        where = file if line is None else f"{file}:{line}"
        what = f" field '{field}':" if field else ""
        super().__init__(f"{where}:{what} {message}")


class ProviderError(ProctorError):
    retryable: bool = False

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class RateLimited(ProviderError):
    retryable = True

    def __init__(
        self, message: str, *, status: int | None = 429, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after_s = retry_after_s


class Transient(ProviderError):
    retryable = True


class AuthError(ProviderError):
    retryable = False


class BadRequest(ProviderError):
    retryable = False


class BadReply(ProviderError):
    retryable = False
