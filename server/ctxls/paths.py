"""Where a request's file is: resolved inside the workspace's roots, or refused; and reading
a file so that what is read is what was checked.

Symlinks are resolved before the check, so a link pointing out of the workspace is refused
like any other outside path, without reading it. Every read of a workspace file then goes
through ``read_inside``, which checks the opened descriptor itself.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from urllib.parse import unquote, urlparse

import attrs

from ctxls.errors import FileMissing, InvalidParams, OutsideWorkspace


@attrs.frozen
class Located:
    root: Path
    abspath: Path
    path: str  # relative to root, POSIX
    uri: str


def file_path(uri: str) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise InvalidParams(f"only file: URIs are supported, got `{uri}`")
    return Path(unquote(parsed.path))


MAX_PATH = 4096  # bytes, as Linux's PATH_MAX
MAX_NAME = 255  # bytes in one name, as NAME_MAX


def locate(roots: list[Path], path: str | None = None, uri: str | None = None) -> Located:
    """Resolve a request's file (symlinks too); refuse anything outside the roots."""
    if uri:
        raw = file_path(uri)
    elif path:
        raw = Path(path)
    else:
        raise InvalidParams("name the file: `textDocument.uri` or `path`")
    text = str(raw)
    if "\0" in text:
        raise InvalidParams("the path holds a NUL byte")
    if len(text.encode("utf-8", errors="surrogatepass")) > MAX_PATH:
        raise InvalidParams(f"the path is longer than {MAX_PATH} bytes")
    if any(len(part.encode("utf-8", errors="surrogatepass")) > MAX_NAME for part in raw.parts):
        raise InvalidParams(f"a name in the path is longer than {MAX_NAME} bytes")
    candidates = [raw] if raw.is_absolute() else [root / raw for root in roots]
    resolved = [_resolve(c, path or uri) for c in candidates]
    for target in sorted(resolved, key=_missing):
        for root in roots:
            if target.is_relative_to(root):
                return Located(root, target, target.relative_to(root).as_posix(),
                               target.as_uri())
    shown = path or uri
    raise OutsideWorkspace(
        f"`{shown}` resolves outside the workspace ({', '.join(map(str, roots))}); "
        "refused without reading it")


def _resolve(p: Path, shown: str | None) -> Path:
    for attempt in range(3):
        try:
            return p.resolve()
        except RuntimeError as exc:  # Path.resolve's word for a symlink loop
            raise InvalidParams(f"`{shown}` is a symlink loop") from exc
        except OSError as exc:  # a link replaced while it was read: look again
            if attempt == 2:
                raise FileMissing(f"`{shown}` cannot be resolved: {exc.strerror}") from exc
    raise AssertionError("unreachable")


def _missing(p: Path) -> bool:
    try:
        return not p.exists()
    except OSError:  # too long a name, a loop below a link: not a file we can read
        return True


class Escaped(OSError):
    """What was opened is not a regular file inside the root (a symlink swapped in since
    the path was checked, a link out of the workspace, a FIFO, a device)."""


def read_inside(path: str | Path, root: str | Path, limit: int = -1) -> bytes:
    """A file's bytes (at most ``limit``), checked after opening, not before: the real path
    of the open descriptor must lie inside ``root``, so swapping a link in between the check
    and the read cannot reach outside. Opened non-blocking, so a FIFO cannot hang a read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Escaped(f"{path} is not a regular file")
        real = _real(fd, path)
        top = os.path.realpath(root)
        if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
            raise Escaped(f"{path} leads outside {top}")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit)
    finally:
        os.close(fd)


def _real(fd: int, path: str | Path) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")  # what was opened, whatever the path is now
    except OSError:  # no /proc: the path as it resolves now (a narrower race remains)
        return os.path.realpath(path)
