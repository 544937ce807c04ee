"""The one way notesdb writes a time: UTC, ISO 8601."""

from __future__ import annotations

from datetime import datetime, timezone

__all__ = ["now_iso", "file_stamp"]


def now_iso(timespec: str = "milliseconds") -> str:
    """The current UTC time, ISO 8601 (``2025-01-31T09:15:02.123+00:00``).

    :param timespec: as for :meth:`datetime.isoformat`: ``"seconds"`` or ``"milliseconds"``
    """
    return datetime.now(timezone.utc).isoformat(timespec=timespec)


def file_stamp() -> str:
    """The current UTC time for a file name: the same instant as :func:`now_iso` to the second,
    without separators (``20250131T091502Z``)."""
    return now_iso("seconds")[:19].replace("-", "").replace(":", "") + "Z"
