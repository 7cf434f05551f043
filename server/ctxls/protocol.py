"""The wire contract of every ``ctx/*`` request: params and results as attrs classes.

Field names are snake_case here and camelCase on the wire (lsprotocol's converter does the
renaming). Result classes have no defaults on purpose: the converter omits fields equal to
their default, and clients rely on every field being present.
"""

from __future__ import annotations

import attrs
from lsprotocol.types import Position, Range, TextDocumentIdentifier

SKELETON = "ctx/skeleton"
READ_SYMBOL = "ctx/readSymbol"
READ_RANGE = "ctx/readRange"
STATUS = "ctx/status"
REFERENCES = "ctx/references"


@attrs.define
class Target:
    symbol: str | None = None
    position: Position | None = None
    line: int | None = None  # 1-based: picks among same-named ones; alone, the one around it
    path: str | None = None  # the file, when the request names none itself
    uri: str | None = None


@attrs.define
class SkeletonParams:
    text_document: TextDocumentIdentifier | None = None
    path: str | None = None
    target: Target | None = None
    line_numbers: bool | None = None


@attrs.define
class Elided:
    range: Range
    symbol: str | None
    lines: int
    names: list[str]


@attrs.define
class SkeletonResult:
    uri: str
    path: str
    language: str | None
    version: int | None
    text: str
    shown: list[Range]
    elided: list[Elided]
    tokens: int
    mode: str  # skeleton | whole | fallback
    reason: str
    target: str | None
    notes: list[str]


@attrs.define
class ReadSymbolParams:
    name: str
    text_document: TextDocumentIdentifier | None = None
    path: str | None = None
    include_header: bool = True
    context_lines: int = 0
    line: int | None = None
    line_numbers: bool | None = None
    run_id: str | None = None  # the agent run, for the escape-hatch log


@attrs.define
class ReadSymbolResult:
    symbol: str
    kind: str
    uri: str
    path: str
    language: str | None
    version: int | None
    range: Range
    context: list[Range]  # lineage lines shown before the declaration
    text: str
    tokens: int
    notes: list[str]


@attrs.define
class ReadRangeParams:
    start_line: int  # 1-based, inclusive
    end_line: int
    text_document: TextDocumentIdentifier | None = None
    path: str | None = None
    line_numbers: bool | None = None
    run_id: str | None = None  # the agent run, for the escape-hatch log


@attrs.define
class ReadRangeResult:
    uri: str
    path: str
    version: int | None
    range: Range
    text: str
    tokens: int
    total_lines: int
    truncated: bool
    notes: list[str]


@attrs.define
class StatusParams:
    wait: bool = False  # answer only when the background scan has finished
    timeout: float = 120.0


@attrs.define
class SkippedFile:
    path: str
    reason: str


@attrs.define
class StoreStatus:
    location: str  # the shared index's address, never with its password
    state: str  # connected | unreachable | lost | off
    reason: str | None  # why not connected, or why nothing came from it
    repository: str | None  # the repository's name in it
    commit: str | None  # the commit whose manifest was read
    local_paths: list[str]  # files parsed here at start (the first 200, sorted)


@attrs.define
class StatusResult:
    roots: list[str]
    scanning: bool
    files: int
    indexed: int
    skipped: list[SkippedFile]  # the first MAX_SKIPPED by path
    skipped_count: int  # all of them
    encoding: str
    from_cache: int  # files whose tables came from the persistent index
    cache: str | None  # the persistent index's database, if any
    search_indexed: int  # files in ctx/search's index so far
    search_ready: bool  # built over the scanned workspace (in the background, or by a search)
    reindexing: int  # files changed on disk, waiting to be indexed again
    reindexed: int  # files indexed again (or dropped) after changes on disk, so far
    from_store: int  # files whose tables came from the shared index
    indexed_locally: int  # files parsed by this server at start
    store: StoreStatus | None  # the shared index, when one is configured


@attrs.define
class ReferencesParams:
    text_document: TextDocumentIdentifier | None = None
    path: str | None = None
    name: str | None = None  # the declaration; or the one at `position`
    position: Position | None = None
    line: int | None = None
    include_candidates: bool = True
    limit: int = 200


@attrs.define
class Site:
    uri: str
    path: str
    range: Range  # the called name
    enclosing: str | None  # qualified name of the declaration the call sits in
    text: str  # the call's lines, numbered
    header: str  # the caller's imports, numbered
    evidence: str  # how the call was tied to the symbol, or why it could not be


@attrs.define
class ReferencesResult:
    symbol: str
    kind: str
    uri: str
    path: str
    references: list[Site]  # proven call sites
    candidates: list[Site]  # same name, receiver of unknown type
    unindexed_files: int  # files of the language that could not be read or are pending
    complete: bool  # scan finished and nothing unindexed: an empty list means no callers
    truncated: bool
    version: int | None
    notes: list[str]  # when not complete: why (how far the scan is, what was not resolved)


TESTS = "ctx/tests"
DEPENDENCIES = "ctx/dependencies"


@attrs.define
class SymbolParams:
    name: str
    text_document: TextDocumentIdentifier | None = None
    path: str | None = None
    line: int | None = None


@attrs.define
class TestItem:
    uri: str
    path: str
    symbol: str | None  # the test function, or None for a whole file (imports, runner setup)
    evidence: str


@attrs.define
class TestsResult:
    symbol: str
    path: str
    tests: list[TestItem]
    complete: bool
    unindexed_files: int
    notes: list[str]


@attrs.define
class DependencyItem:
    symbol: str
    kind: str
    uri: str
    path: str
    range: Range
    relation: str  # call | constant | name | import | attribute
    line: int  # 1-based line where the body (or its file's import) uses it


@attrs.define
class DependenciesResult:
    symbol: str
    path: str
    dependencies: list[DependencyItem]
    complete: bool  # the scan had finished: every imported file was indexed
    notes: list[str]


CONSTRUCT = "ctx/construct"


@attrs.define
class Obligation:
    id: str = ""
    text: str = ""
    targets: list[str] = attrs.Factory(list)  # symbols, `path::Qualified.name` or bare
    tests: list[str] = attrs.Factory(list)  # test functions, `path::test_name` or bare


@attrs.define
class LiveItem:
    kind: str  # patch | error | traceback | test_output | tool_output
    text: str
    name: str | None = None  # the tool or command that produced it
    superseded: bool = False  # already falsified: omitted from the window


@attrs.define
class RetrievedHit:
    path: str
    symbol: str | None = None
    start_line: int | None = None  # 1-based, inclusive, when the hit is a line range
    end_line: int | None = None
    score: float = 0.0
    query: str = ""


@attrs.define
class ConstructParams:
    text_document: TextDocumentIdentifier | None = None
    path: str | None = None
    target: Target | None = None
    task: str = ""
    intent: str = "edit"  # edit | rename | state | review
    obligations: list[Obligation] = attrs.Factory(list)  # the first is the current one
    acceptance_criteria: list[str] = attrs.Factory(list)
    live: list[LiveItem] = attrs.Factory(list)  # oldest first: the last is the freshest
    retrieved: list[RetrievedHit] = attrs.Factory(list)
    ceiling: int | None = None  # tokens; default: the policy's first_turn_ceiling, or 24,000
    reservations: dict[str, int] | None = None  # tokens per role, overriding the shares
    encoding: str | None = None
    query: str | None = None  # fill `retrieved` from ctx/search instead
    # For measuring what each rule earns: kinds of evidence left out of the pool, as
    # `role:tests`, `relation:module-test`, `source:06`, or renderings not offered, as
    # `rendering:verbatim` (an item left with none keeps its cheapest); `placement:edges`
    # buries the edges' items mid-window (the ordering's probe).
    ablate: list[str] = attrs.Factory(list)
    # Wait for the initial scan first (at most the `indexWait` option's seconds): a window
    # built on a half-built index lacks call sites and tests.
    wait_for_index: bool = True


@attrs.define
class WindowItem:
    id: str
    role: str  # core | target | tests | interfaces | call_sites | retrieved | live
    relation: str  # why it is here: target, dependency, module-interface, caller, ...
    kind: str
    source: str
    rendering: str  # verbatim | excerpt | signature | name | pointer | digest | truncated
    placement: str  # front | middle | back
    uri: str | None
    path: str | None
    symbol: str | None
    shown: list[Range]  # original lines shown verbatim
    tokens: int
    text: str
    provenance: str
    pointer_to: str | None
    writable: bool  # false: the policy says the task must not modify this path


@attrs.define
class GateEntry:
    id: str
    decision: str  # admitted | residue | residue-admitted | rejected
    driver: str
    reason: str
    kind: str
    source: str
    path: str | None
    symbol: str | None


@attrs.define
class BudgetEntry:
    step: str
    item: str | None
    detail: str
    tokens: int


@attrs.define
class OmittedItem:
    id: str
    reason: str
    kind: str
    path: str | None
    symbol: str | None
    start_line: int | None  # 1-based handle for ctx/readRange when there is no symbol
    end_line: int | None


@attrs.define
class RankingInfo:
    """The one model call: whether it fired, and how it went."""

    fired: bool
    reason: str  # why it did not fire, why its answer was discarded, or "ok"
    latency_ms: float | None
    usage: dict[str, int] | None  # token usage, when the endpoint returned it


@attrs.define
class DecisionContext:
    task: str
    acceptance_criteria: list[str]
    current_obligation: Obligation | None
    target: str  # path::Qualified.name
    intent: str
    window: list[WindowItem]
    text: str
    token_count: int
    ceiling: int
    encoding: str
    budget_log: list[BudgetEntry]
    gate_log: list[GateEntry]
    omitted: list[OmittedItem]
    flagged: bool  # the stable core alone did not fit and was emitted alone
    table_misses: list[str]  # (kind, relation) pairs the representation table lacks
    notes: list[str]
    ranking: RankingInfo
    complete: bool  # built on the whole index: every call site and test could be found
    # milliseconds per stage (dependencies, target, class, interfaces, callers (and tests),
    # extras (live errors, retrieved, policy), pipeline, shape) and in all (total)
    timings: dict[str, float] = attrs.field(factory=dict)


PAGE = "ctx/page"  # params: ConstructParams


@attrs.define
class PageResult:
    """One window as a self-contained HTML page, with the figures a status bar shows."""

    html: str
    target: str
    token_count: int
    ceiling: int
    complete: bool


CHUNKS = "ctx/chunks"


@attrs.define
class ChunksParams:
    text_document: TextDocumentIdentifier | None = None
    path: str | None = None  # one file; omitted: every indexed file
    max_tokens: int = 8192  # the size cap (a common embedding model's input limit)
    include_text: bool = True


@attrs.define
class ChunkItem:
    chunk_id: str
    path: str
    symbol: str | None
    kind: str
    parents: list[str]
    start_byte: int
    end_byte: int
    language: str | None
    header_bytes: int
    granularity: str  # fine | coarse | window | names
    part: int
    parts: int
    tokens: int
    content_hash: str
    strategy: str  # symbol | window | names
    text: str | None


@attrs.define
class ChunksResult:
    chunks: list[ChunkItem]
    files: int
    splits: int  # chunks that are parts of a split symbol
    complete: bool  # one file's chunks, or every file's once the scan has finished
    notes: list[str]


SEARCH = "ctx/search"


@attrs.define
class SearchParams:
    query: str
    limit: int = 10


@attrs.define
class SearchHit:
    chunk_id: str
    uri: str
    path: str
    symbol: str | None
    kind: str
    granularity: str  # fine | coarse | window | names
    score: float  # BM25; higher is better


@attrs.define
class SearchResult:
    query: str
    hits: list[SearchHit]
    files: int  # files in the search index
    complete: bool  # the scan had finished: every file was searchable
    notes: list[str]


STATS = "ctx/stats"


@attrs.define
class StatsParams:
    max_tokens: int = 8192  # the chunk size cap the split counts refer to


RECORD_OUTCOME = "ctx/recordOutcome"


@attrs.define
class OutcomeParams:
    run_id: str
    success: bool


@attrs.define
class OutcomeResult:
    logged: bool
    log: str | None  # the log file, workspace-relative
