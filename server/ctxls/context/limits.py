"""Every number that shapes a context window, in one place, with what it bounds.

The ones marked "measured" were chosen on the replay benchmark (bench/replay/): changing
one changes what windows hold, so re-run it (and compare every answer with
bench/answers.py) before and after.
"""

from __future__ import annotations

DEFAULT_CEILING = 24_000  # tokens, when neither the request nor the policy sets one
MIN_CEILING = 256  # a smaller ceiling cannot hold the task and a target's signature
# The roles' default shares of what the core and the freshest failure leave (percent);
# unspent tokens flow down to the next role, then back to omitted and demoted items.
DEFAULT_SHARES = {"target": 25, "tests": 15, "interfaces": 10, "call_sites": 8, "retrieved": 12}

# The pool and the gate
MAX_ITEMS = 256  # candidates in the pool; the rest wait outside, by source priority
MAX_CONTENT = 8192  # bytes of an item's `content`
MAX_PROVENANCE = 200  # characters of an item's provenance
MAX_ADMITTED = 64  # items the gate admits, the lowest source priority cut first
IRREDUCIBLE = 1024  # bytes: an item that cannot get below this at its rendering is flagged

# What the target uses (measured)
MAX_BASES = 4  # project base classes shown with a method's window
MAX_MODULES = 12  # imported project modules shown as interfaces
MAX_INTERFACE_LINES = 12  # definition lines per module interface
MAX_CLASS_MEMBERS = 8  # public members shown per class the target uses from another file

# What the change affects
MAX_CALLERS = 24  # call sites carried as items; the digest counts all of them
MAX_CANDIDATES = 40  # unproven name matches carried (rejected by the gate, counted)
MAX_TESTS = 24  # tests and setup files considered as items
MAX_TEST_ITEMS = 8  # tests shown by name (the digest counts the rest)
SECOND_HOP = 8  # callers whose own callers the digest counts (each is a references query)
# files whose calls are judged for a window's call sites and counts, the nearest to the
# target's first: a name thousands of files use (a helper copied into every test fixture,
# babel's `C`) took 2 s at 400 (about 5 ms a file on first reading); the note says so
MAX_CALLER_FILES = 100

# The agent's own retrieval and the one ranking call
SEARCH_HITS = 8  # chunks ctx/search contributes when the request gives a `query`
TASK_NAMES = 6  # identifiers of the task looked up as declarations (when search is ready)
MAX_RESIDUE = 32  # the ranking call fires only for a residue this small
MAX_SIGNATURE = 400  # characters of a candidate's signature in the ranking prompt
