"""Facts over the listed files, brought up to date from what changed (``Listing``): the
same as worked out again from the whole listing, whatever the changes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxls.snapshot import Listing, _basenames, _basenames_since

PATHS = [f"/ws/{d}/{n}" for d in ("a", "b", "a/c", "d") for n in ("m.py", "t.py", "x.ts")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.tuples(st.booleans(), st.sampled_from(PATHS)), max_size=6),
                min_size=1, max_size=8))
def test_basenames_brought_up_to_date_match_a_fresh_pass(
        steps: list[list[tuple[bool, str]]]) -> None:
    listing = Listing()
    entries: dict[str, Any] = dict.fromkeys(PATHS[:5])
    held = []  # (each version stays as a snapshot held it)
    for changes in steps:
        got = listing.of(entries, "basenames", _basenames, _basenames_since)
        want = _basenames(entries)
        assert {n: sorted(k) for n, k in got.items()} == {n: sorted(k) for n, k in want.items()}
        held.append((entries, got))
        entries = dict(entries)  # the workspace copies the dict a snapshot holds
        for add, path in changes:
            if add:
                entries[path] = None
            else:
                entries.pop(path, None)
    for version, seen in held:  # an answer given out is never changed afterwards
        assert {n: sorted(k) for n, k in seen.items()} == {
            n: sorted(k) for n, k in _basenames(version).items()}


def test_a_fact_is_worked_out_once_per_version_and_patched_after() -> None:
    calls: list[str] = []

    def make(entries: Any) -> dict[str, list[str]]:
        calls.append("make")
        return _basenames(entries)

    def patch(found: Any, old: Any, new: Any) -> dict[str, list[str]]:
        calls.append("patch")
        return _basenames_since(found, old, new)

    listing = Listing()
    first: dict[str, Any] = dict.fromkeys([f"/ws/p{i}/m.py" for i in range(20)])
    assert len(listing.of(first, "basenames", make, patch)["m.py"]) == 20
    listing.of(first, "basenames", make, patch)
    second = {**first, "/ws/q/m.py": None}
    assert len(listing.of(second, "basenames", make, patch)["m.py"]) == 21
    assert calls == ["make", "patch"]
