"""A thing that holds something to let go of (a connection, a live view): `with` it, and
`close()` runs on the way out, however the block ends."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """Base of the objects used as `with X(...) as x:` that end by `close()`; a subclass that
    must start something on entry overrides `__enter__` and returns `super().__enter__()`."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
