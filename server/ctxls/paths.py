"""Where a request's file is: which file it names, resolved inside the workspace's roots,
or refused (a missing one with the listed paths it may have meant); and reading a file so
that what is read is what was checked.

Symlinks are resolved before the check, so a link pointing out of the workspace is refused
like any other outside path, without reading it. Every read of a workspace file then goes
through ``read_inside``, which checks the opened descriptor itself.
"""

from __future__ import annotations

import functools
import heapq
import os
import posixpath
import stat
from collections.abc import Iterable
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


def locate_many(roots: list[Path], uris: list[str]) -> list[Located | None]:
    """``locate`` for many URIs at once (a checkout's thousands of changed files): a
    folder's real path is looked up once, not once per file in it. A path that is not
    plainly inside a root (``..``, a link on the way, a link as the file) is located in
    full; one outside the roots, or no file: URI, is None."""
    real: dict[str, str] = {}
    out: list[Located | None] = []
    for uri in uris:
        try:
            raw = file_path(uri)
        except InvalidParams:
            out.append(None)
            continue
        text = str(raw)
        folder, _, name = text.rpartition("/")
        root = next((r for r in roots if text.startswith(f"{r}/")), None)
        if folder not in real:
            real[folder] = os.path.realpath(folder)
        if root is not None and real[folder] == folder and name not in ("", ".", "..") \
                and "/./" not in text and "/../" not in text and not os.path.islink(text):
            rel = text[len(str(root)) + 1 :]
            out.append(Located(root, raw, rel, raw.as_uri()))
            continue
        try:
            out.append(locate(roots, uri=uri))
        except (OutsideWorkspace, InvalidParams, FileMissing):
            out.append(None)
    return out


def target_file(params: object) -> tuple[str | None, str | None]:
    """The file a request names, as ``(path, uri)``: its own ``path`` / ``textDocument.uri``,
    else its target's ``path`` / ``uri``. Two different files are refused; they are compared
    as written (normalised, symlinks not followed), so this needs no workspace."""
    doc = getattr(params, "text_document", None)
    path: str | None = getattr(params, "path", None)
    uri: str | None = doc.uri if doc else None
    target = getattr(params, "target", None)
    t_path: str | None = getattr(target, "path", None)
    t_uri: str | None = getattr(target, "uri", None)
    if not (t_path or t_uri):
        return path, uri
    if not (path or uri):
        return t_path, t_uri
    outer = str(file_path(uri)) if uri else path
    inner = str(file_path(t_uri)) if t_uri else t_path
    assert outer and inner
    if not _same_file(outer, inner):
        raise InvalidParams(
            f"`{'textDocument.uri' if uri else 'path'}` and "
            f"`{'target.uri' if t_uri else 'target.path'}` name different files "
            f"(`{uri or path}`, `{t_uri or t_path}`); name the file once")
    return path, uri


def _same_file(a: str, b: str) -> bool:
    a, b = posixpath.normpath(a), posixpath.normpath(b)
    if posixpath.isabs(a) == posixpath.isabs(b):
        return a == b
    whole, tail = (a, b) if posixpath.isabs(a) else (b, a)
    return whole.endswith("/" + tail)  # relative to some root: as far as it goes, the same


CLOSE_POOL = 5000  # names difflib compares at most: a 50k-file workspace stays quick


def close_paths(wanted: str, listed: Iterable[str], n: int = 3) -> list[str]:
    """Listed files a missing path may have meant: the same file name in other folders
    first (the most trailing folders in common first), then near spellings, looked for in
    the same folder, then among files of the same extension, then the rest."""
    folder, _, name = wanted.rpartition("/")
    ext = posixpath.splitext(name)[1]
    same: list[str] = []
    groups: tuple[list[str], ...] = ([], [], [])  # same folder, same extension, the rest
    for path in dict.fromkeys(listed):  # a path in two roots is one suggestion
        where, _, base = path.rpartition("/")
        if base == name and path != wanted:
            same.append(path)
            continue
        group = groups[0 if where == folder else 1 if base.endswith(ext) else 2]
        if len(group) < CLOSE_POOL:
            group.append(path)
    parts = wanted.split("/")
    same.sort(key=lambda x: (-_common_tail(parts, x.split("/")), len(x), x))
    # A near spelling needs a near file name: a shared folder alone makes
    # `auth/missing.py` look like `auth/session.py`. File names are short: compared first.
    import difflib  # (only for a refusal's suggestions: 25 ms of every start-up)

    base_match = difflib.SequenceMatcher(b=name)
    scored: list[tuple[float, str]] = []
    for path in [*groups[0], *groups[1], *groups[2]][:CLOSE_POOL]:
        base_match.set_seq1(path.rpartition("/")[2])
        if base_match.real_quick_ratio() >= 0.75 and base_match.quick_ratio() >= 0.75 \
                and base_match.ratio() >= 0.75:
            score = difflib.SequenceMatcher(None, path, wanted).ratio()
            if score >= 0.6:
                scored.append((score, path))
    return [*same, *(x for _, x in heapq.nlargest(n, scored))][:n]


def _common_tail(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


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
        top = _real_root(str(root))
        if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
            raise Escaped(f"{path} leads outside {top}")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit)
    finally:
        os.close(fd)


@functools.lru_cache(maxsize=64)
def _real_root(root: str) -> str:
    """The root's real path as first resolved: a scan reads every file under the same
    root, and resolving it again each time was a third of a small file's read. Kept, it
    is the stricter check: a root re-pointed since still refuses what it now leads to."""
    return os.path.realpath(root)


def _real(fd: int, path: str | Path) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")  # what was opened, whatever the path is now
    except OSError:  # no /proc: the path as it resolves now (a narrower race remains)
        return os.path.realpath(path)
