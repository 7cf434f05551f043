"""A real PostgreSQL server for the tests: Debian's PostgreSQL 15, in a temporary folder, on
a free port of 127.0.0.1, stopped when the test session (or the test) is done.

``initdb`` and ``pg_ctl`` refuse to run as root, and CI runs as root: there they run as
``nobody``, in a folder that user owns. The superuser has a password and TCP connections
must give it (scram-sha-256), so the tests can check that a password never leaks.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

BIN = Path("/usr/lib/postgresql/15/bin")
USER = "ctxls"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def available() -> str | None:
    """None when a server can be started here, else why not."""
    if not (BIN / "initdb").exists():
        return f"PostgreSQL 15 is missing ({BIN}/initdb): run scripts/test-deps.sh as root"
    return None


class Postgres:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="ctxls-pg-"))
        self.password = "pw-" + secrets.token_hex(8)
        self.port = free_port()
        self.data = self.folder / "data"
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:  # initdb refuses root: the folder becomes nobody's
            import pwd

            nobody = pwd.getpwnam("nobody")
            os.chown(self.folder, nobody.pw_uid, nobody.pw_gid)
            self._as = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
        pwfile = self.folder / "pw"
        pwfile.write_text(self.password)
        if self._as:
            os.chown(pwfile, self._as["user"], self._as["group"])
        self._run(BIN / "initdb", "-D", self.data, "-U", USER, "--pwfile", pwfile,
                  "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                  "--locale=C.UTF-8")
        pwfile.unlink()
        self.start()

    def _run(self, *cmd: object) -> None:
        subprocess.run([str(c) for c in cmd], check=True, capture_output=True, timeout=120,
                       cwd=self.folder, **self._as)

    def start(self) -> None:
        opts = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                "-c max_connections=60 -c shared_buffers=128MB")
        self._run(BIN / "pg_ctl", "-D", self.data, "-l", self.folder / "log", "-o", opts,
                  "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run(BIN / "pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def dsn(self, db: str = "postgres", password: bool = True) -> str:
        secret = f":{self.password}" if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{db}"

    def create_db(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
