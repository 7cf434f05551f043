"""Worker processes end with the process that started them, however it ends.

The scan's workers are forked from a forkserver that the server starts. If the server is
killed, nothing runs its cleanup: the forkserver keeps waiting, and a worker blocked on a
full result pipe that a sibling still holds open waits forever, and so does
multiprocessing's resource tracker, whose pipe they all hold. Linux can deliver a signal
to a process when its parent dies (``PR_SET_PDEATHSIG``): the forkserver imports this
module (it is preloaded there, and only there), and each worker calls ``bind`` when it
starts, so the server's death takes the forkserver, the forkserver's takes the workers,
and the tracker then sees its pipe close.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def bind() -> None:
    """Be killed when the parent process dies (Linux; elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the signal was asked for
        os._exit(1)
