"""A fast start: the methods attrs generates, compiled once and kept on disk.

Importing lsprotocol's types defines about 570 attrs classes, and attrs writes and compiles
the source of each one's ``__init__``, ``__eq__`` and ``__repr__``: half of the 0.5-1 s a
server takes before it can answer ``initialize`` is that compiling. The compiled code
depends only on the generated source and its file name, so it is kept (``marshal``, per
Python and attrs version) in the cache folder and read back on the next start. Anything
unexpected (an attrs without the hook, an unreadable or foreign file) means compiling as
attrs would: the cache can make a start faster, never different.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import CodeType
from typing import Any

# A hashable class's __hash__ embeds hash() of a string, which differs in every process
# (attrs names the script after the method, or compiles all of a class's methods as one
# "methods" script): kept, it would never be found again.
PER_PROCESS = "__hash__"
LIMIT = 20_000  # about 3.5 times what a server's imports generate


def cache_folder() -> Path:
    """Where the server keeps what it may rebuild: the index caches, compiled code. With
    no home folder to be found (no ``HOME``, no user entry), a folder of the user's own
    under the system's temporary folder rather than no start at all."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:
            user = os.getuid() if hasattr(os, "getuid") else "user"
            base = os.path.join(tempfile.gettempdir(), f"ctxls-cache-{user}")
    return Path(base) / "ctxls"


def stamp(path: str) -> str:
    """A file's size and time, standing for its package's version: asking a package for
    ``__version__`` reads its metadata, and importing that (importlib.metadata, email) was
    0.04 s a start."""
    st = os.stat(path)
    return f"{st.st_size:x}{st.st_mtime_ns:x}"


def _cache_file() -> Path:
    from attr import _make

    tag = f"{sys.implementation.cache_tag}-attrs{stamp(_make.__file__)}"
    return cache_folder() / f"generated-code-{tag}.marshal"


def read_kept(path: Path) -> Any:
    """What ``keep`` wrote at ``path``; None when it is missing or unreadable."""
    try:  # (read whole, then decoded: ``marshal.load`` on a file reads it object by
        # object through Python's file layer, five times slower for the tokenizer's tables)
        with open(path, "rb") as f:
            return marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None


def keep(path: Path, value: Any, family: str) -> None:
    """Write ``value`` (marshal) at ``path``, whole or not at all (a concurrent start reads
    either), and remove the other files of ``family`` (a glob in the same folder: another
    version's, never read again). Failing to write costs the next start time, no more."""
    with contextlib.suppress(OSError, ValueError):  # (ValueError: not marshallable)
        data = marshal.dumps(value)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            for other in path.parent.glob(family):
                if other != path:
                    other.unlink(missing_ok=True)
        finally:
            with contextlib.suppress(OSError):  # (gone once replaced)
                os.unlink(tmp)


@contextlib.contextmanager
def compiled_once() -> Iterator[None]:
    """While the server's modules import, attrs' generated methods come from the cache;
    what was compiled anew is added to it afterwards."""
    try:
        from attr import _make
    except ImportError:
        yield
        return
    original = getattr(_make, "_compile_and_eval", None)
    if original is None:  # another attrs: compile as it does
        yield
        return
    path = _cache_file()
    found = read_kept(path)
    table: dict[bytes, CodeType] = found if isinstance(found, dict) else {}
    added: dict[bytes, CodeType] = {}

    def compile_and_eval(script: str, globs: dict[str, Any] | None,
                         locs: Mapping[str, object] | None = None,
                         filename: str = "") -> None:
        if PER_PROCESS in script:
            eval(compile(script, filename, "exec"), globs, locs)
            return
        key = hashlib.blake2b(f"{filename}\0{script}".encode(), digest_size=16).digest()
        code = table.get(key)
        if code is None:
            code = compile(script, filename, "exec")
            added[key] = code
        eval(code, globs, locs)

    _make._compile_and_eval = compile_and_eval
    try:
        yield
    finally:
        _make._compile_and_eval = original
        if added:
            # entries of classes since changed are never read again: past the bound, start over
            keep(path, added if len(table) + len(added) > LIMIT else {**table, **added},
                 f"generated-code-{sys.implementation.cache_tag}-*")
