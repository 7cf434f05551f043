"""Files changed on disk, watched from a child process.

watchfiles sets up the watches of a whole tree in one call that holds the GIL: 1.4 s for
the 22,000 folders of a 57,000-file workspace, during which no request was answered. A
child process sets them up instead, with the walk's rules (``.gitignore`` files, the
excludes, the folders always skipped), and reports on its stdout, one JSON object a line:
``{"watching": true}`` once the watches are set, then ``{"uris": [...], "policy": bool}``
for each batch of changes. The server reads the reports on a thread of its own (reading a
pipe releases the GIL). The child ends when its stdin closes, and dies with the server.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("ctxls")


class Watcher:
    """The server's end: the child process and the thread that reads its reports."""

    def __init__(self, roots: list[Path], exclude: list[str],
                 watching: Callable[[], None],
                 changed: Callable[[list[str], bool], None]) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "ctxls.watch", json.dumps(
                {"roots": [str(r) for r in roots], "exclude": exclude})],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self._watching, self._changed = watching, changed
        self._thread = threading.Thread(target=self._read, name="ctxls-watch", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        try:
            for line in self._proc.stdout:
                report = json.loads(line)
                if report.get("watching"):
                    self._watching()
                if report.get("uris") or report.get("policy"):
                    self._changed(list(report.get("uris", [])), bool(report.get("policy")))
        except Exception as exc:  # (a report the server cannot read: stop listening)
            log.error("file watching stopped: %s", exc)
        code = self._proc.wait()
        if code not in (0, -9, -15):
            log.error("file watching stopped: the watcher exited with %s", code)

    def close(self) -> None:
        """Stop the child: its stdin closes, and it ends within a second (the reading
        thread then reaps it; a server that exits first takes it along)."""
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()


def _emit(report: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()


def main(spec: str) -> None:
    """The child: watch the roots until stdin closes."""
    from ctxls.index import lifeline

    lifeline.bind()
    import watchfiles

    from ctxls.index.walk import Ignores, walk
    from ctxls.policy import POLICY_PATH

    args = json.loads(spec)
    roots = [Path(r) for r in args["roots"]]
    ignores = {str(root): Ignores(root, args["exclude"]) for root in roots}
    stop = threading.Event()

    def until_closed() -> None:
        sys.stdin.buffer.read()
        stop.set()

    threading.Thread(target=until_closed, daemon=True).start()

    def rel_of(path: str) -> tuple[str, str] | None:
        root = next((r for r in ignores if path.startswith(r + os.sep)), None)
        return (root, path[len(root) + 1 :].replace(os.sep, "/")) if root else None

    def wanted(change: watchfiles.Change, path: str) -> bool:
        found = rel_of(path)
        if found is None:
            return False
        root, rel = found
        if rel == POLICY_PATH:
            return True
        if rel.rsplit("/", 1)[-1] == ".gitignore":
            ignores[root].forget(rel.rpartition("/")[0])
        return not ignores[root].ignored(rel)

    def uris_of(changes: set[tuple[watchfiles.Change, str]]) -> list[str]:
        uris: list[str] = []
        for _, path in sorted(changes, key=lambda c: c[1]):
            found = rel_of(path)
            if found is not None and os.path.isdir(path):  # a new folder: files
                root, folder = found  # made before its watch was set are missed
                uris += [Path(abspath).as_uri() for rel, abspath in walk(Path(path))
                         if not ignores[root].ignored(f"{folder}/{rel}")]
                continue
            uris.append(Path(path).as_uri())
        return uris

    watching = False
    for changes in watchfiles.watch(*roots, watch_filter=wanted, debounce=200, step=50,
                                    stop_event=stop, rust_timeout=1000,
                                    yield_on_timeout=True, raise_interrupt=False):
        if not watching:  # (the first yield comes once the watches are set)
            watching = True
            _emit({"watching": True})
        if changes:
            _emit({"uris": uris_of(changes),
                   "policy": any(p.endswith(POLICY_PATH) for _, p in changes)})


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        main(sys.argv[1])
