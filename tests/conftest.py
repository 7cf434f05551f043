from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from ctxls.syntax import languages
from ctxls.syntax.languages import Language

REPO = Path(__file__).resolve().parent.parent
# tests/fixtures holds inputs (the golden corpus has test files of its own), not tests.
collect_ignore = ["fixtures"]

# Servers the tests start keep their persistent index here, never in the user's cache.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ctxls-test-cache-")
EXAMPLE = REPO / "examples" / "workspace"


@pytest.fixture(scope="session")
def python() -> Language:
    lang = languages.registry()["python"]
    return lang
