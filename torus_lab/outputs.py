"""An output root's writers: one at a time, atomic replacement of an experiment's folders, and recovery of what
an interrupted writer left behind.

An *output root* holds ``data/<name>``, ``figures/<name>`` and ``reports/<name>`` for every experiment (the
project folder for the committed paper outputs, ``scratch/<preset>`` or any ``--out``).  Three rules keep it
consistent whatever happens to the process writing it:

* **One writer.**  :func:`output_lock` takes an exclusive ``flock`` on ``<root>/.torus-lab.lock`` and writes
  its holder (pid, command, start time) into it.  A second run refuses, naming the holder, or waits for it
  (``wait=True``).  The operating system releases the lock when its process ends, however it ends (``kill
  -9`` included), so the lock of a dead process is simply taken over.  Within one process the lock is
  re-entrant (``reproduce`` holds it while its experiments, side by side in threads, take it again).
* **Atomic replacement.**  A run writes everything into ``<root>/.staging-<name>-<id>/<kind>/<name>``, then
  :func:`swap_into_place` moves each staged folder onto its target, the earlier one into
  ``<staging>/previous/``.  A journal (``swap.json``, written before the first move) lists the moves, and a
  ``committed`` marker is written after the last one.
* **Recovery.**  Taking the lock removes every staging folder left in the root (only a dead writer can have
  left one, since the lock is held): a swap that did not commit is rolled back from its journal, so a ``kill
  -9`` at any moment leaves the earlier outputs as they were; a committed one only loses its leftovers.

Examples
--------
>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> with output_lock(root) as holder:
...     holder["pid"] == os.getpid()
True
>>> stale = root / ".staging-demo-0000"
>>> (stale / "data" / "demo").mkdir(parents=True)
>>> with output_lock(root):
...     stale.exists()
False
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from torus_lab._errors import ExperimentError
from torus_lab._validate import check_instance, check_sequence, check_str

__all__ = ["LOCK_NAME", "STAGING_PREFIX", "OutputRootBusyError", "output_lock", "lock_holder",
           "recover_staging", "staging_folder", "swap_into_place"]  # fmt: skip

#: The lock file of an output root (git-ignored).
LOCK_NAME = ".torus-lab.lock"
#: Prefix of a run's staging folder in its output root (git-ignored).
STAGING_PREFIX = ".staging-"
_JOURNAL = "swap.json"
_COMMITTED = "committed"
_TRASH = "previous"
#: Seconds between two looks at a busy lock while waiting for it.
WAIT_POLL_S = 0.5


class OutputRootBusyError(ExperimentError):
    """Another process writes into the output root; the message names it (pid, command, start time)."""

    exit_code = 1


# ---------------------------------------------------------------------- the lock
_held: dict[Path, list[Any]] = {}  # root -> [file descriptor, depth, holder] of this process
_held_guard = threading.Lock()


def _holder_record() -> dict[str, Any]:
    return {"pid": os.getpid(), "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])[:300],
            "started_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}  # fmt: skip


def lock_holder(root: str | os.PathLike) -> dict[str, Any] | None:
    """The holder recorded in ``root``'s lock file (pid, command, start time), or None when there is none.

    The record may be that of a process that has ended: only :func:`output_lock` tells whether it still holds
    the lock.

    Examples
    --------
    >>> import tempfile
    >>> lock_holder(tempfile.mkdtemp()) is None
    True
    """
    path = Path(check_instance("root", root, (str, os.PathLike), "a folder path")) / LOCK_NAME
    try:
        record = json.loads(path.read_text(encoding="utf-8") or "null")
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _describe(holder: dict[str, Any] | None) -> str:
    if not holder:
        return "another process"
    return f"pid {holder.get('pid')} ({holder.get('command', '?')}), started {holder.get('started_utc', '?')}"


def _try_lock(handle: int) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


#: What a refused writer is told to do (the command line's options).
RUN_HINT = "wait for it to finish (--wait), or write elsewhere (--out)"


def _acquire(root: Path, wait: bool, notify: Any, hint: str) -> list[Any]:
    path = root / LOCK_NAME
    handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        told = False
        while not _try_lock(handle):
            if not wait:
                raise OutputRootBusyError(f"output root {root} is in use by {_describe(lock_holder(root))}; {hint}")
            if not told and notify is not None:
                notify(f"waiting for {_describe(lock_holder(root))} to finish writing {root}")
                told = True
            time.sleep(WAIT_POLL_S)
        holder = _holder_record()
        os.ftruncate(handle, 0)
        os.pwrite(handle, (json.dumps(holder) + "\n").encode(), 0)
        recover_staging(root)
    except BaseException:
        os.close(handle)
        raise
    return [handle, 0, holder]


def output_lock(root: str | os.PathLike, *, wait: bool = False, notify: Any = None,
                hint: str = RUN_HINT) -> contextlib.AbstractContextManager[dict[str, Any]]:  # fmt: skip
    """Hold ``root``'s writer lock for the ``with`` block; yields the holder record.

    Parameters
    ----------
    root : folder path
        The output root (it must exist).
    wait : bool
        Wait for another process's lock instead of refusing with :class:`OutputRootBusyError`.
    notify : callable, optional
        Called once with a one-line message when ``wait`` has to wait.
    hint : str
        What the :class:`OutputRootBusyError` of a refused writer advises (default: the command line's options;
        a notebook run by hand is told about its output folders instead).

    Taking the lock (first time in this process) removes the staging folders a dead writer left
    (:func:`recover_staging`).  Re-entrant within one process; the lock file stays (an empty lock is free).
    """
    folder = Path(check_instance("root", root, (str, os.PathLike), "a folder path")).resolve()
    check_instance("wait", wait, bool, "a bool")
    if notify is not None and not callable(notify):
        raise TypeError(f"notify must be callable or None, got {notify!r}")
    check_str("hint", hint)
    if not folder.is_dir():
        raise ValueError(f"root {str(root)!r} is not a folder")
    return _locked(folder, wait, notify, hint)


@contextlib.contextmanager
def _locked(folder: Path, wait: bool, notify: Any, hint: str) -> Iterator[dict[str, Any]]:
    with _held_guard:
        entry = _held.get(folder)
        if entry is None:
            entry = _held[folder] = _acquire(folder, wait, notify, hint)
        entry[1] += 1
    try:
        yield dict(entry[2])
    finally:
        with _held_guard:
            entry[1] -= 1
            if entry[1] == 0:
                del _held[folder]
                with contextlib.suppress(OSError):
                    os.ftruncate(entry[0], 0)  # no holder recorded: the lock is free
                os.close(entry[0])  # closing the descriptor releases the flock


# ---------------------------------------------------------------------- staging and the swap
def staging_folder(root: str | os.PathLike, name: str, token: str) -> Path:
    """The staging folder of one run of experiment ``name`` in ``root``: ``<root>/.staging-<name>-<token>``.

    Examples
    --------
    >>> staging_folder("/out", "loads", "1a2b").as_posix()
    '/out/.staging-loads-1a2b'
    """
    root = Path(check_instance("root", root, (str, os.PathLike), "a folder path"))
    return root / f"{STAGING_PREFIX}{check_str('name', name)}-{check_str('token', token)}"


def _moves(staging: Path, pairs: Sequence[tuple[Path, Path]]) -> list[dict[str, str | None]]:
    trash = staging / _TRASH
    return [{"staged": str(staged), "target": str(target),
             "backup": str(trash / f"{target.parent.name}-{target.name}") if target.exists() else None}
            for staged, target in pairs]  # fmt: skip


def swap_into_place(staging: str | os.PathLike, pairs: Sequence[tuple[Path, Path]]) -> None:
    """Move each ``(staged, target)`` folder of ``pairs`` onto its target, all or none.

    Each earlier target goes into ``<staging>/previous/``.  The moves are journaled in ``staging`` first and
    marked committed after the last one; on an error every target is restored, and a process killed in the
    middle is rolled back by the next writer (:func:`recover_staging`).  ``staging`` itself is left for the
    caller to remove.
    """
    staging = Path(check_instance("staging", staging, (str, os.PathLike), "a folder path"))
    if not staging.is_dir():
        raise ValueError(f"staging {str(staging)!r} is not a folder")
    pairs = [_folder_pair(pair) for pair in check_sequence("pairs", pairs)]
    moves = _moves(staging, pairs)
    (staging / _TRASH).mkdir(exist_ok=True)
    _write_synced(staging / _JOURNAL, json.dumps(moves))
    try:
        for move in moves:
            target = Path(move["target"])
            if move["backup"] is not None:
                target.rename(move["backup"])
            target.parent.mkdir(parents=True, exist_ok=True)
            Path(move["staged"]).rename(target)
    except BaseException:
        _roll_back(moves)
        raise
    _write_synced(staging / _COMMITTED, "")


def _folder_pair(pair: object) -> tuple[Path, Path]:
    """``(staged, target)`` of :func:`swap_into_place`, checked: two folder paths."""
    items = check_sequence("pairs", pair)
    if len(items) != 2 or not all(isinstance(item, (str, os.PathLike)) for item in items):
        raise TypeError(f"pairs must hold (staged, target) pairs of folder paths, got {pair!r}")
    return Path(items[0]), Path(items[1])


def _write_synced(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def _roll_back(moves: list[dict[str, str | None]]) -> None:
    """Undo the moves of a swap that did not commit, last first: each new target back to its staged place,
    each earlier target back from ``previous/``."""
    for move in reversed(moves):
        staged, target = Path(move["staged"]), Path(move["target"])
        backup = Path(move["backup"]) if move["backup"] is not None else None
        if target.exists() and not staged.exists():  # the new folder was moved in: move it back
            staged.parent.mkdir(parents=True, exist_ok=True)
            target.rename(staged)
        if backup is not None and backup.exists() and not target.exists():
            backup.rename(target)


def recover_staging(root: str | os.PathLike) -> list[Path]:
    """Remove every staging folder in ``root``, rolling back a swap that did not commit; returns the folders.

    Only a writer that died leaves a staging folder behind, so call this with the root's lock held
    (:func:`output_lock` does).  A staging folder without a journal never started its swap; one with a journal
    but no commit marker is rolled back (earlier outputs restored); a committed one only loses its leftovers.
    """
    root = Path(check_instance("root", root, (str, os.PathLike), "a folder path"))
    found = sorted(p for p in root.glob(f"{STAGING_PREFIX}*") if p.is_dir() and not p.is_symlink())
    for staging in found:
        journal = staging / _JOURNAL
        if journal.is_file() and not (staging / _COMMITTED).exists():
            try:
                moves = json.loads(journal.read_text(encoding="utf-8"))
            except ValueError:  # cut short while written: no move had started
                moves = []
            _roll_back(moves)
        shutil.rmtree(staging, ignore_errors=True)
    return found
