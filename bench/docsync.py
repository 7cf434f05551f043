"""An open document brought up to date after an edit, beside the same text indexed whole.

For each FILE, in this process: the document is opened and its outline and reference
tables made; then EDITS times each of three edits is made and the document read again
(re-parse, outline, reference tables, the form the index files them in): a space typed at
the end of a random line of the middle half, a comment line added before the file's last
line (the top level, or a class body in Java), and the whole text sent again with one more
such line (a client without incremental sync). Then, through a workspace holding the
file, a save of the document (the file holds its text) and a close with one unsaved line
(the file is read, never written). Beside them, the same text parsed and indexed from
scratch (what a whole-text change, a save and a close each cost before stop 44; a typed
edit then updated the outline only when inside a body, and the reference tables whole).
Printed per file: the medians, the maximum, and the ratio to from scratch.

Usage: python bench/docsync.py FILE [FILE ...] [--edits 30] [--seed 44]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: F401  (bytecode written, as users' installs have it)
from ctxls.config import Options
from ctxls.index import refs as refs_mod
from ctxls.index.scan import index_batch
from ctxls.index.tables import Tables
from ctxls.syntax import languages
from ctxls.syntax.document import Document
from ctxls.syntax.outline import extract
from ctxls.syntax.text import LineIndex
from ctxls.workspace import Workspace


def one(path: Path, edits: int, seed: int) -> None:
    lang = languages.outlined(str(path))
    if lang is None:
        print(f"{path}: no outline for this language")
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    doc = Document(lang, text, 1)
    doc.outline()
    doc.refs()
    rng = random.Random(seed)
    comment = f"{lang.line_comment} ctxls\n"
    took: dict[str, list[float]] = {"typed": [], "line": [], "whole": [], "from scratch": []}
    version = 1

    for _ in range(edits):
        rows = doc.lines.line_count
        row = rng.randrange(rows // 4, max(rows // 4 + 1, 3 * rows // 4))
        col = len(doc.lines.line(row))
        for kind in ("typed", "line", "whole"):
            version += 1
            began = time.perf_counter()  # (the edit, the re-parse, both tables, filed form)
            if kind == "typed":
                doc.edit((row, col), (row, col), " ", "utf-8", version)
            else:
                last = doc.lines.line_count - 2
                if kind == "line":
                    doc.edit((last, 0), (last, 0), comment, "utf-8", version)
                else:
                    now = doc.data.decode("utf-8", errors="replace")
                    at = now.rfind("\n", 0, len(now) - 1) + 1
                    doc.replace(now[:at] + comment + now[at:], version)
            outline, refs = doc.outline(), doc.refs()
            assert outline is not None
            Tables.of(outline, refs)
            took[kind].append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        data = doc.data
        tree = lang.parser().parse(data)
        outline = extract(lang, tree, LineIndex(data))
        Tables.of(outline, refs_mod.extract(lang, tree.root_node))
        took["from scratch"].append((time.perf_counter() - began) * 1000)
    took.update(saved(path, comment, edits))
    base = statistics.median(took["from scratch"])
    print(f"{path.name} ({len(doc.data):,} bytes, {lang.name}), {edits} edits of each kind:")
    for kind, ms in took.items():
        med = statistics.median(ms)
        print(f"  {kind:<13} median {med:6.2f} ms, max {max(ms):6.2f} ms"
              + ("" if kind == "from scratch" else f"  ({med / base:.2f}x from scratch)"))


def saved(path: Path, comment: str, times: int) -> dict[str, list[float]]:
    """A save of the document (the file holds its text), and a close of it with one
    unsaved line, each as the workspace takes it (the file is read, never written)."""
    cache = tempfile.TemporaryDirectory()  # (a save is kept in the index's cache, as
    ws = Workspace([path.parent], Options(cache_dir=cache.name))  # a server keeps it)
    ws.add(index_batch([(path.name, str(path))], 1 << 30))
    uri, text = path.as_uri(), path.read_text(encoding="utf-8", errors="replace")
    took: dict[str, list[float]] = {"save": [], "close unsaved": []}
    for _ in range(times):
        ws.open(uri, text, 1)
        ws.snapshot(refs=True)
        began = time.perf_counter()
        ws.refresh(uri)
        took["save"].append((time.perf_counter() - began) * 1000)
        row = text.count("\n") // 2
        ws.change(uri, 2, [((row, 0), (row, 0), comment)])
        ws.snapshot(refs=True)
        began = time.perf_counter()
        ws.close(uri)
        took["close unsaved"].append((time.perf_counter() - began) * 1000)
    cache.cleanup()
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--seed", type=int, default=44)
    args = ap.parse_args()
    for path in args.files:
        one(path, args.edits, args.seed)


if __name__ == "__main__":
    main()
