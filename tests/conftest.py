from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxls.syntax import languages
from ctxls.syntax.languages import Language
from tests import pgserver
from tests.pgserver import Postgres

REPO = Path(__file__).resolve().parent.parent
# tests/fixtures holds inputs (the golden corpus has test files of its own), not tests.
collect_ignore = ["fixtures"]

# Servers the tests start keep their persistent index here, never in the user's cache.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ctxls-test-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], ignore_errors=True)
EXAMPLE = REPO / "examples" / "workspace"


@pytest.fixture(scope="session")
def python() -> Language:
    lang = languages.registry()["python"]
    return lang


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """One real PostgreSQL server for the session (tests make their own databases)."""
    why = pgserver.available()
    if why is not None:
        pytest.fail(why)
    server = Postgres()
    yield server
    server.close()


@pytest.fixture
def store(postgres: Postgres, request: pytest.FixtureRequest) -> str:
    """The address (with its password) of a fresh, empty database for one test."""
    name = "t_" + re.sub(r"\W", "_", request.node.name.lower())[:40] + f"_{os.getpid()}"
    return postgres.create_db(name)


@pytest.fixture(scope="session")
def ray_local() -> Iterator[None]:
    """A real local Ray with 2 CPUs, started once (it takes seconds) and shut down at the
    end of the session."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
