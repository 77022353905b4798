"""An output root's writers: the lock, the journaled swap and the recovery of what a killed writer left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torus_lab.outputs import (
    LOCK_NAME,
    OutputRootBusyError,
    lock_holder,
    output_lock,
    recover_staging,
    staging_folder,
    swap_into_place,
)

KINDS = ("data", "figures", "reports")


def _outputs(root: Path) -> dict[str, str]:
    """Every file under the kinds' folders, as text."""
    return {p.relative_to(root).as_posix(): p.read_text() for kind in KINDS for p in sorted((root / kind).rglob("*"))
            if p.is_file()}  # fmt: skip


def _stage(root: Path, name: str, text: str, *, earlier: bool) -> tuple[Path, list[tuple[Path, Path]]]:
    """A staging folder for ``name`` holding ``text`` in each kind; with ``earlier``, outputs already in place."""
    staging = staging_folder(root, name, "test")
    pairs = []
    for kind in KINDS:
        staged = staging / kind / name
        staged.mkdir(parents=True)
        (staged / "file.txt").write_text(f"{text} {kind}")
        target = root / kind / name
        if earlier:
            target.mkdir(parents=True)
            (target / "file.txt").write_text(f"old {kind}")
        pairs.append((staged, target))
    return staging, pairs


def test_a_failing_move_restores_every_target(tmp_path):
    staging, pairs = _stage(tmp_path, "x", "new", earlier=True)
    before = _outputs(tmp_path)
    pairs[1] = (staging / "figures" / "missing", pairs[1][1])  # the second move fails
    with pytest.raises(FileNotFoundError):
        swap_into_place(staging, pairs)
    assert _outputs(tmp_path) == before
    assert (staging / "data" / "x" / "file.txt").read_text() == "new data"


KILLER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from torus_lab import outputs
    root, after = Path(sys.argv[1]), int(sys.argv[2])
    staging = outputs.staging_folder(root, "x", "test")
    pairs = [(staging / kind / "x", root / kind / "x") for kind in ("data", "figures", "reports")]
    real_rename, done = Path.rename, [0]
    def rename(self, target):  # dies like kill -9 after `after` renames
        if done[0] == after:
            os.kill(os.getpid(), signal.SIGKILL)
        done[0] += 1
        return real_rename(self, target)
    Path.rename = rename
    real_write = outputs._write_synced
    def write(path, text):
        if path.name == "committed" and after == 99:
            real_write(path, text)
            os.kill(os.getpid(), signal.SIGKILL)  # committed, not yet cleaned up
        return real_write(path, text)
    outputs._write_synced = write
    outputs.swap_into_place(staging, pairs)
""")


@pytest.mark.parametrize("earlier", [True, False], ids=["replacing", "first-run"])
@pytest.mark.parametrize("after", [0, 1, 2, 3, 4, 5, 99])
def test_a_writer_killed_during_the_swap_is_rolled_back_or_completed_by_the_next(tmp_path, earlier, after):
    """kill -9 after each rename of the swap (and after its commit): the next writer's recovery leaves the
    earlier outputs exactly, or, once the swap committed, the new ones; never a mix or a missing folder."""
    if not earlier and 3 <= after < 99:
        pytest.skip("a first run makes three moves (nothing to back up)")
    staging, _ = _stage(tmp_path, "x", "new", earlier=earlier)
    before = _outputs(tmp_path)
    done = subprocess.run([sys.executable, "-c", KILLER, str(tmp_path), str(after)], capture_output=True, text=True)
    assert done.returncode == -9, done.stderr
    assert staging.exists()
    assert recover_staging(tmp_path) == [staging]
    assert not staging.exists()
    expected = {f"{kind}/x/file.txt": f"new {kind}" for kind in KINDS} if after == 99 else before
    assert _outputs(tmp_path) == expected


def test_taking_the_lock_removes_stale_staging_folders(tmp_path):
    staging, _ = _stage(tmp_path, "x", "half-written", earlier=True)
    before = {path: text for path, text in _outputs(tmp_path).items() if path.startswith(KINDS)}
    with output_lock(tmp_path):
        assert not staging.exists()
    assert _outputs(tmp_path) == before


HOLDER = textwrap.dedent("""
    import sys, time
    from torus_lab.outputs import output_lock
    with output_lock(sys.argv[1]):
        print("held", flush=True)
        time.sleep(float(sys.argv[2]))
        open(sys.argv[1] + "/released", "w").close()
""")


def _holding(root: Path, seconds: float) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(root), str(seconds)], stdout=subprocess.PIPE,
                               text=True)  # fmt: skip
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_second_writer_is_refused_naming_the_holder(tmp_path):
    holder = _holding(tmp_path, 60)
    try:
        with pytest.raises(OutputRootBusyError, match=rf"in use by pid {holder.pid} \(-c .*\), started 20"):
            with output_lock(tmp_path):
                pass
        assert lock_holder(tmp_path)["pid"] == holder.pid
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_of_a_killed_holder_is_taken_over(tmp_path):
    holder = _holding(tmp_path, 60)
    holder.kill()  # kill -9: its record stays in the file, its lock goes with it
    holder.wait()
    assert lock_holder(tmp_path)["pid"] == holder.pid
    with output_lock(tmp_path) as record:
        assert record["pid"] == os.getpid() == lock_holder(tmp_path)["pid"]
    assert lock_holder(tmp_path) is None  # released: no holder recorded


def test_waiting_for_the_lock_takes_it_when_the_holder_ends(tmp_path):
    holder = _holding(tmp_path, 1.5)
    told = []
    with output_lock(tmp_path, wait=True, notify=told.append):
        assert (tmp_path / "released").exists()  # the holder had finished
    assert len(told) == 1 and f"pid {holder.pid}" in told[0]
    holder.wait()


def test_the_lock_is_reentrant_within_a_process(tmp_path):
    with output_lock(tmp_path) as outer, output_lock(tmp_path) as inner:
        assert outer == inner
        assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == os.getpid()
    with output_lock(tmp_path):  # released once and taken again
        pass


def test_lock_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="root"):
        with output_lock(tmp_path / "missing"):
            pass
    with pytest.raises(TypeError, match="wait"):
        with output_lock(tmp_path, wait="yes"):
            pass
    with pytest.raises(TypeError, match="notify"):
        with output_lock(tmp_path, notify="print"):
            pass
