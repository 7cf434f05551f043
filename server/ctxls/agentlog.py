"""The one file the server writes inside a workspace: the log under ``.agent/``.

Reads of paths the policy excludes are allowed and recorded there, and so are the outcomes
agents report for their runs. A record holds paths, symbols, rules and run ids, never file
contents or settings (an API key must never reach it).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from ctxls.errors import InvalidParams


def append(root: Path, log: str | None, record: dict[str, object]) -> bool:
    """Append one record to ``root/log``; False when no log is configured."""
    if not log:
        return False
    target = (root / log).resolve()
    if not target.is_relative_to(root / ".agent"):  # the server writes nowhere else
        raise InvalidParams(f"contextLog must lie under .agent/, not {log}")
    target.parent.mkdir(parents=True, exist_ok=True)
    record = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), **record}
    with target.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return True
