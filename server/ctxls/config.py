"""Server options, from ``initializationOptions`` (camelCase on the wire)."""

from __future__ import annotations

import attrs

from ctxls.syntax.skeleton import SkeletonOptions
from ctxls.tokens import DEFAULT_ENCODING

# Larger files are listed, not parsed (their windows are bounded lines; RxJava's central
# `Flowable.java`, 1.19 MB, is parsed at 2 MiB, as a language's own server would).
MAX_FILE_BYTES = 2 << 20


@attrs.define
class RankingOptions:
    """The single ranking call: an OpenAI-compatible chat-completions API."""

    base_url: str
    model: str
    api_key_env: str | None = None  # the NAME of the variable that holds the key
    timeout_s: float = 20.0
    threshold: float = 0.5


@attrs.define
class Options:
    encoding: str = DEFAULT_ENCODING  # tiktoken encoding for every token count
    line_numbers: bool = True
    whole_max_lines: int = 120
    whole_max_tokens: int = 1500
    flat_ratio: float = 0.25
    doc_lines: int = 4
    max_file_bytes: int = MAX_FILE_BYTES
    read_range_max_lines: int = 400
    fallback_lines: int = 80
    scan_processes: int = 2  # worker processes for a cold scan (parsing holds the GIL)
    exclude: list[str] = attrs.Factory(list)  # extra gitignore-style patterns
    cache_dir: str | None = None  # persistent index; default: $XDG_CACHE_HOME/ctxls
    persist: bool = True  # keep the index between runs
    # Reads of paths the policy excludes are allowed and logged here (workspace-relative;
    # None: no log). The only file the server ever writes inside a workspace.
    context_log: str | None = ".agent/context-log.jsonl"
    run_id: str | None = None  # default run id for that log
    ranking: RankingOptions | None = None  # off unless configured (or CTXLS_RANKING_*)
    # Build ctx/search's index after the scan, a few files at a time between requests, so
    # the first search does not wait for it (Django: 12 s, ~100 MiB). False: on first use.
    search_prebuild: bool = True
    # Files whose shared tables are built behind the ready signal while no request is
    # answered, the most named first (index/ahead.py; ~25 KiB each). 0: none.
    read_ahead: int = 500
    # Seconds a request that depends on the index waits for the initial scan (standard LSP
    # requests, and ctx/construct unless `waitForIndex: false`) before it answers with what
    # there is, saying so.
    index_wait: float = 10.0
    # Watch the workspace for files created, changed or deleted on disk, unless the client
    # registers workspace/didChangeWatchedFiles (VS Code does; Neovim on Linux does not).
    watch_files: bool = True
    # The shared index (PostgreSQL) built by `ctxls index build`: clean files take their
    # tables from the commit's manifest, and the rest are indexed here. An address such as
    # postgresql://user@host/db (the password from PGPASSWORD or ~/.pgpass, best).
    store: str | None = None
    store_repo: str | None = None  # the repository's name in it (default: the remote's URL)
    store_timeout: float = 2.5  # seconds to connect before indexing alone

    def skeleton(self, line_numbers: bool | None = None) -> SkeletonOptions:
        return SkeletonOptions(
            line_numbers=self.line_numbers if line_numbers is None else line_numbers,
            whole_max_lines=self.whole_max_lines,
            whole_max_tokens=self.whole_max_tokens,
            flat_ratio=self.flat_ratio,
            doc_lines=self.doc_lines,
            fallback_lines=self.fallback_lines,
        )
