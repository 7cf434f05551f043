"""What loads behind the ready signal: each language's queries and module-system facts,
the globs the first windows ask, the requests' converters; a step at a time, each while
no request is answered."""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections import Counter
from collections.abc import Callable

from ctxls.index import modules
from ctxls.syntax import languages


def load_languages(plan: list[tuple[str, str]], roots: list[str],
                   busy: Callable[[], bool] = lambda: False,
                   then: list[Callable[[], object]] | None = None) -> None:
    """Compile the queries of every language the plan has a file of, and let their module
    systems read what they read once per root (a monorepo's package.json files). The
    languages with most files first; the queries requests read before those only a change
    or an edit reads; one at a time, none while a request is answered (a query compiles
    in C, holding the GIL up to 0.2 s; a request compiles what it needs itself). Then the
    steps ``then`` (the requests' converters)."""
    counts: Counter[str] = Counter(os.path.splitext(rel)[1].lower() for rel, _ in plan)
    langs: dict[str, languages.Language] = {}
    systems: set[str] = set()
    for ext, _ in counts.most_common():
        pause(busy)
        lang = languages.for_path(f"x{ext}")
        if lang is not None:
            langs.setdefault(lang.name, lang)
            system = languages.module_system(f"x{ext}")
            if system is not None:
                systems.add(system)
    steps: list[Callable[[], object]] = [functools.partial(lang.compiled, "top")
                                         for lang in langs.values()]
    steps += [functools.partial(modules.named(system).prepare, f"{root}/")
              for system in sorted(systems) for root in roots]
    steps += [functools.partial(lang.compiled, name)
              for lang in langs.values() for name in ("refs", "scan", "outline")]
    steps += globs(plan)
    steps += then or []
    for step in steps:
        pause(busy)
        with contextlib.suppress(Exception):  # (a request meets the same error later)
            step()


def globs(plan: list[tuple[str, str]]) -> list[Callable[[], object]]:
    """Steps that compile each language's test and generated-file globs (the first window
    asks them of hundreds of files)."""
    exts = {os.path.splitext(rel)[1].lower() for rel, _ in plan}
    return [functools.partial(languages.warm_globs, f"x{ext}") for ext in sorted(exts)]


def run(steps: list[Callable[[], object]]) -> object:
    for step in steps:
        with contextlib.suppress(Exception):  # (a request meets the same error later)
            step()
    return None


def pause(busy: Callable[[], bool]) -> bool:
    """Wait while ``busy``; True (go on)."""
    while busy():
        time.sleep(0.01)
    return True
