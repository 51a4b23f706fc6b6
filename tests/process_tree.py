"""Run a command and measure what a user would: its wall time and the peak memory of its whole process tree.

Why not ``resource.getrusage(RUSAGE_CHILDREN)``: its ``ru_maxrss`` is the largest *single* descendant's peak,
while a scoring run's memory is the driver's plus every worker's.  Here ``/proc`` is polled (every
``interval`` seconds): the tree is the process and its descendants (``/proc/PID/task/TID/children``), and
its memory the sum of their resident sets (``/proc/PID/statm``).  Pages a forked worker still shares with
its parent are counted in both, so the sum is an upper bound on what the tree holds -- the right side to
err on when checking that it stays under a limit.  ``peak_pss`` (proportional set size, shared pages
split between their sharers; ``/proc/PID/smaps_rollup``) is read too, at a slower pace, for reports.

Linux only (the tests that use it skip elsewhere).  No psutil: the package does not depend on it.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

__all__ = ["Measured", "run_measured", "available", "tree_pids", "session_members"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def available() -> bool:
    """Whether ``/proc`` gives what :func:`run_measured` reads."""
    return Path(f"/proc/{os.getpid()}/statm").exists() and Path(f"/proc/{os.getpid()}/task").is_dir()


def tree_pids(root: int) -> list[int]:
    """``root`` and its living descendants."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{tid}/children") as fh:
                        todo.extend(int(c) for c in fh.read().split())
                except OSError:
                    pass
        except OSError:
            pass
    return out


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return 0


@dataclass
class Measured:
    """A finished command: its exit code, output, wall seconds and peak tree memory (bytes)."""

    returncode: int
    stdout: str
    stderr: str
    wall: float
    peak_rss: int          # largest sum of the tree's resident sets seen
    peak_pss: int          # largest sum of the tree's proportional set sizes seen
    peak_processes: int    # most processes seen in the tree at once
    leftover: int          # processes of the command's session still alive a moment after it exited


def run_measured(cmd: Sequence[str], *, timeout: float, interval: float = 0.02, pss_every: int = 5,
                 env: dict[str, str] | None = None, cwd: str | None = None) -> Measured:
    """Run ``cmd`` (killing its tree after ``timeout`` seconds) while sampling its tree's memory."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=cwd, start_new_session=True)
    peak_rss = peak_pss = peak_n = 0
    out_chunks: list[str] = []
    err_chunks: list[str] = []
    import threading

    def drain(stream, sink):
        for chunk in iter(lambda: stream.read(65536), ""):
            sink.append(chunk)

    readers = [threading.Thread(target=drain, args=(proc.stdout, out_chunks), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, err_chunks), daemon=True)]
    for r in readers:
        r.start()
    i = 0
    killed = False
    while proc.poll() is None:
        pids = tree_pids(proc.pid)
        peak_n = max(peak_n, len(pids))
        peak_rss = max(peak_rss, sum(_rss(p) for p in pids))
        if i % pss_every == 0:
            peak_pss = max(peak_pss, sum(_pss(p) for p in pids))
        i += 1
        if time.perf_counter() - t0 > timeout and not killed:
            os.killpg(proc.pid, 9)
            killed = True
        time.sleep(interval)
    wall = time.perf_counter() - t0
    for r in readers:
        r.join(5)
    time.sleep(0.5)
    left = session_members(proc.pid)
    for pid in left:       # never leave a stray worker behind a test
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    return Measured(proc.returncode if not killed else -9, "".join(out_chunks), "".join(err_chunks), wall,
                    peak_rss, peak_pss, peak_n, len(left))


def session_members(sid: int) -> list[int]:
    """Living processes whose session id is ``sid`` (the command was started in a session of its own)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                out.append(int(name))
        except (OSError, ValueError, IndexError):
            pass
    return out
