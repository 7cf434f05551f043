from __future__ import annotations

from pathlib import Path

import pytest

from ctxls.syntax import languages
from ctxls.syntax.languages import Language

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "workspace"


@pytest.fixture(scope="session")
def python() -> Language:
    lang = languages.registry()["python"]
    return lang
