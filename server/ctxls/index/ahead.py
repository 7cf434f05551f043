"""Reading ahead, once the index is ready: what requests build of the files most of them
read, built before the first one asks.

A window resolves names through the module name maps of the files it reads, the modules
their imports name, and their decoded tables; each is built by the first request that
needs it and kept for the next. The first window after a scan built them for the
workspace's most-read files (okio: 46-52 ms, against 30-34 ms for the same target asked
after nine windows on other files). Built here on a worker thread, they are ready for a
request that comes a moment after the ready signal. Bounded: a large workspace's first
requests read a few hundred files, and each decoded file costs ~25 KiB.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable

from ctxls.index.refindex import FileInfo, RefIndex
from ctxls.index.tables import prefetch
from ctxls.snapshot import Snapshot, stem_of
from ctxls.syntax.languages import is_test_path

# What is read ahead lives until evicted (freed by reference counts, not by the collector),
# so it is kept out of collections as it is made: a full collection walking it cost jsoup's
# next window 10 ms.
FREEZE_EVERY = 25
TEST_STRIDE = 50  # test files whose imports are read between two pauses (~60 us each)


def most_named(refs: RefIndex) -> list[FileInfo]:
    """The index's files, those named by the most files first, then in path order. Named:
    by their file name's stem, as the inverted index files calls and imports (a Java
    class's file by the class, a Python module by the last part of its import), the count
    shared among the files of that stem (the thousands of `index.js` files of a JavaScript
    tree share the files that import some `index`)."""
    files = list(refs.files.values())
    sharing = Counter(stem_of(i.path) for i in files)

    def named(info: FileInfo) -> float:
        stem = stem_of(info.path)
        return len(refs.by_name.get(stem, ())) / sharing[stem]
    return sorted(files, key=lambda i: (-named(i), i.key))


def read_ahead(snap: Snapshot, limit: int,
               pause: Callable[[], bool] = lambda: True) -> int | None:
    """Build the facts over the listing a window asks (the files by name, among which it
    looks for its target's test module: 5 ms of Django's first window), the modules each
    test file imports (commons-lang's first window: 16 ms), then the module name maps, the
    imported modules and the decoded tables of the ``limit`` (the option `readAhead`) most
    named files of the snapshot's index (this runs beside the server's loop); ``pause``
    before each step (one file's is short, so a request that comes waits little for it),
    which says whether to go on. The name maps first: they read each file's payload head,
    which a decoded file answers more slowly. Returns the number of files read, or None
    when told to stop."""
    refs = snap.refs
    for fact in (lambda: snap.named(""), lambda: snap.unindexed(None)):
        if not pause():
            return None
        fact()
    # Every window looks for its target's tests among the test files that name its module,
    # by what each one's imports name; few of them are among the most named files.
    tests = [i for i in refs.files.values() if is_test_path(i.path)]
    for n, info in enumerate(tests):
        if n % TEST_STRIDE == 0:
            if not pause():
                return None
            prefetch(t.tables for t in tests[n : n + TEST_STRIDE])
        refs.imported_modules(info)
    if not pause():  # (the choice reads every file's name: 57,000 on a large tree)
        return None
    chosen = most_named(refs)[:limit]
    steps: tuple[Callable[[FileInfo], object], ...] = (
        lambda info: refs.tops(info).prepare(), refs.imported_modules,
        lambda info: info.tables.outline)
    for step in steps:
        for n, info in enumerate(chosen, 1):
            if not pause():
                return None
            step(info)
            if n % FREEZE_EVERY == 0 or n == len(chosen):
                gc.freeze()  # (right after a pause: the server's waits for no request)
    return len(chosen)


def rehearsals(refs: RefIndex, count: int) -> list[tuple[str, str, int]]:
    """(absolute path, qualname, 1-based line) of the first function or method with a body
    in each of the ``count`` most named files that have one: targets for windows built
    behind the ready signal, whose answers nobody reads (what a window runs for the first
    time in a process, and what it builds for every later one)."""
    out: list[tuple[str, str, int]] = []
    for info in most_named(refs):
        if len(out) >= count:
            break
        for d in info.tables.outline.decls:
            if d.body is not None and d.kind in ("function", "method"):
                out.append((info.key, d.qualname, d.name_span.start_row + 1))
                break
    return out
