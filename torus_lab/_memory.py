"""Up-front memory checks for computations whose memory grows with the network.

Every allocation proportional to the network (link loads, channel dependency graphs, routing tables, the
simulator's state) is estimated before it is made and refused when the estimate exceeds a limit:

* ``TORUS_LAB_MEMORY_LIMIT`` (environment): bytes as an integer or with a binary suffix ``K``, ``M``, ``G``,
  ``T`` (``512M``, ``4G``, ``1.5G``; an optional trailing ``B``/``iB`` is accepted);
* otherwise :data:`DEFAULT_FRACTION` (one half) of the memory available now (:func:`available_memory`).

Asking the platform for the available memory costs about as much as solving a small instance, so
:func:`check_memory` reuses a reading for small estimates: one at most :data:`SMALL_SHARE` of the limit that a
reading less than :data:`READING_TTL_S` seconds old gives is accepted without a new reading; every other check
(and every check under ``TORUS_LAB_MEMORY_LIMIT``) compares with the limit of now.

A refusal is a :class:`MemoryLimitError`, a subclass of :class:`MemoryError`, raised before anything large is
allocated; its message names the computation and the network size, the estimate and the limit in GiB, and how
to raise the limit.

Examples
--------
>>> parse_memory_size("4G")
4294967296
>>> check_memory(10 * 2**20, "a small table")   # 10 MiB: far below any limit
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable

from torus_lab.settings import ENVIRONMENT, current_settings

__all__ = [
    "DEFAULT_FRACTION",
    "ENV_VAR",
    "READING_TTL_S",
    "SMALL_SHARE",
    "MemoryLimitError",
    "available_memory",
    "parse_memory_size",
    "memory_limit",
    "check_memory",
    "network_size",
]

#: Environment variable holding the memory limit in bytes (suffixes K, M, G, T allowed).
ENV_VAR = ENVIRONMENT["memory_limit_text"]
#: Share of the currently available memory used as the limit when the variable is not set.
DEFAULT_FRACTION = 0.5
#: Seconds for which :func:`check_memory` reuses a reading of the available memory for a small estimate.
READING_TTL_S = 1.0
#: Largest share of the limit (from a recent reading) that counts as a small estimate; anything larger, e.g.
#: the next of two large allocations made within a second, is compared with a new reading.
SMALL_SHARE = 1 / 64
_FALLBACK_AVAILABLE = 4 * 2**30  # when the platform tells nothing: assume 4 GiB
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)
#: The last reading of the available memory: (the function read, ``time.monotonic()`` of the reading, bytes).
_last_reading: tuple[Callable[[], int], float, int] | None = None


class MemoryLimitError(MemoryError):
    """A computation's estimated memory exceeds the configured limit (raised before allocating)."""


def available_memory() -> int:
    """Bytes of memory available to new allocations now.

    psutil's ``virtual_memory().available`` when psutil is installed, else ``MemAvailable`` from
    ``/proc/meminfo`` (Linux), else free pages from ``os.sysconf``, else 4 GiB.

    Examples
    --------
    >>> available_memory() > 0
    True
    """
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        return int(psutil.virtual_memory().available)
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return _FALLBACK_AVAILABLE


def parse_memory_size(text: str, name: str = ENV_VAR) -> int:
    """Bytes from ``"123456"``, ``"512M"``, ``"4G"``, ``"1.5GiB"`` (binary units); ValueError naming ``name``.

    Examples
    --------
    >>> parse_memory_size("512M"), parse_memory_size("1.5g"), parse_memory_size("1000")
    (536870912, 1610612736, 1000)
    >>> parse_memory_size("lots")
    Traceback (most recent call last):
    ...
    ValueError: TORUS_LAB_MEMORY_LIMIT='lots' is not a memory size: use bytes or a number with K, M, G or T \
(e.g. 4G)
    """
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(f"{name}={text!r} is not a memory size: use bytes or a number with K, M, G or T (e.g. 4G)")
    value = float(match.group(1)) * _UNITS[match.group(2).upper()]
    if not math.isfinite(value) or value < 1:
        raise ValueError(f"{name}={text!r} must be at least one byte")
    return int(value)


def memory_limit() -> int:
    """The limit in bytes: ``TORUS_LAB_MEMORY_LIMIT`` if set, else :data:`DEFAULT_FRACTION` of the available
    memory.

    Examples
    --------
    >>> import os
    >>> os.environ["TORUS_LAB_MEMORY_LIMIT"] = "2G"
    >>> memory_limit()
    2147483648
    >>> del os.environ["TORUS_LAB_MEMORY_LIMIT"]
    """
    text = current_settings().memory_limit_text
    if text is not None:
        return parse_memory_size(text)
    return int(DEFAULT_FRACTION * _read_available())


def _read_available() -> int:
    """:func:`available_memory` read now and remembered, with the time, for :func:`_small_for_recent_limit`."""
    global _last_reading
    source = available_memory  # looked up at call time: tests may replace it
    value = source()
    _last_reading = (source, time.monotonic(), value)
    return value


def _small_for_recent_limit(estimate_bytes: float) -> bool:
    """True when no limit is set in the environment and ``estimate_bytes`` is at most :data:`SMALL_SHARE` of the
    default limit from a reading of :func:`available_memory` less than :data:`READING_TTL_S` seconds old.

    Examples
    --------
    >>> _ = memory_limit()   # a reading now (when TORUS_LAB_MEMORY_LIMIT is not set)
    >>> _small_for_recent_limit(2**62)
    False
    """
    reading = _last_reading
    if reading is None:
        return False
    source, when, available = reading
    if source is not available_memory or time.monotonic() - when >= READING_TTL_S:
        return False
    if current_settings().memory_limit_text is not None:
        return False
    return estimate_bytes <= SMALL_SHARE * DEFAULT_FRACTION * available


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.2f} GiB"


def check_memory(estimate_bytes: float, what: str) -> None:
    """Raise :class:`MemoryLimitError` when ``estimate_bytes`` exceeds :func:`memory_limit`.

    A small estimate (at most :data:`SMALL_SHARE` of the limit from a reading of the available memory less than
    :data:`READING_TTL_S` seconds old, no ``TORUS_LAB_MEMORY_LIMIT`` set) is accepted without a new reading.

    Parameters
    ----------
    estimate_bytes : float
        Estimated peak memory of the computation (bytes).
    what : str
        The computation and the network size, e.g. ``"link_loads on Torus(4, 64): 16,777,216 nodes"``.

    Examples
    --------
    >>> import os
    >>> os.environ["TORUS_LAB_MEMORY_LIMIT"] = "1M"
    >>> check_memory(3 * 2**30, "a big table")
    Traceback (most recent call last):
    ...
    torus_lab._memory.MemoryLimitError: a big table: needs an estimated 3.00 GiB, above the memory limit of 0.00 GiB \
(TORUS_LAB_MEMORY_LIMIT=1M); raise the limit with the environment variable TORUS_LAB_MEMORY_LIMIT (e.g. \
TORUS_LAB_MEMORY_LIMIT=6G) or use a smaller network
    >>> del os.environ["TORUS_LAB_MEMORY_LIMIT"]
    """
    if _small_for_recent_limit(estimate_bytes):
        return
    limit = memory_limit()
    if estimate_bytes <= limit:
        return
    text = current_settings().memory_limit_text
    source = (
        f"{ENV_VAR}={text}"
        if text is not None
        else f"{DEFAULT_FRACTION:g} of the {_gib(limit / DEFAULT_FRACTION)} available"
    )
    raise MemoryLimitError(
        f"{what}: needs an estimated {_gib(estimate_bytes)}, above the memory limit of {_gib(limit)} ({source}); "
        f"raise the limit with the environment variable {ENV_VAR} (e.g. {ENV_VAR}="
        f"{max(1, math.ceil(2 * estimate_bytes / 2**30))}G) or use a smaller network"
    )


def network_size(topology: object) -> str:
    """``"Torus(4, 64): 16,777,216 nodes"``: a topology's repr and node count, for refusal messages.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> network_size(Torus(4, 64))
    'Torus(4, 64): 16,777,216 nodes'
    """
    return f"{topology!r}: {getattr(topology, 'num_nodes', 0):,} nodes"
