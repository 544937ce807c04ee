"""The one way notesdb writes a time: UTC, ISO 8601."""

from __future__ import annotations

import time

__all__ = ["now_iso", "file_stamp"]


def now_iso(timespec: str = "milliseconds") -> str:
    """The current UTC time, ISO 8601 (``2025-01-31T09:15:02.123+00:00``).

    The same text as ``datetime.now(timezone.utc).isoformat(timespec=timespec)``, written with
    :mod:`time` because importing :mod:`datetime` costs the hook about 2 ms on every message.

    :param timespec: as for :meth:`datetime.isoformat`: ``"seconds"`` or ``"milliseconds"``
    """
    now = time.time()
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
    if timespec == "milliseconds":
        text += f".{int(now * 1000) % 1000:03d}"
    return text + "+00:00"


def file_stamp() -> str:
    """The current UTC time for a file name: the same instant as :func:`now_iso` to the second,
    without separators (``20250131T091502Z``)."""
    return now_iso("seconds")[:19].replace("-", "").replace(":", "") + "Z"
