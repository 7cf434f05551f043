"""Where a request's file is: resolved inside the workspace's roots, or refused.

Symlinks are resolved before the check, so a link pointing out of the workspace is refused
like any other outside path, without reading it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

import attrs

from ctxls.errors import InvalidParams, OutsideWorkspace


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
    candidates = [raw] if raw.is_absolute() else [root / raw for root in roots]
    try:
        resolved = [c.resolve() for c in candidates]
    except RuntimeError as exc:  # Path.resolve's word for a symlink loop
        raise InvalidParams(f"`{path or uri}` is a symlink loop") from exc
    except OSError as exc:
        raise InvalidParams(f"`{path or uri}` cannot be resolved: {exc.strerror}") from exc
    for target in sorted(resolved, key=_missing):
        for root in roots:
            if target.is_relative_to(root):
                return Located(root, target, target.relative_to(root).as_posix(),
                               target.as_uri())
    shown = path or uri
    raise OutsideWorkspace(
        f"`{shown}` resolves outside the workspace ({', '.join(map(str, roots))}); "
        "refused without reading it")


def _missing(p: Path) -> bool:
    try:
        return not p.exists()
    except OSError:  # too long a name, a loop below a link: not a file we can read
        return True
