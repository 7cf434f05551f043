"""The pure halves of naming a file: which file a request names, and close paths for one
that is missing."""

from __future__ import annotations

import pytest

from ctxls import protocol as p
from ctxls.errors import InvalidParams
from ctxls.paths import CLOSE_POOL, close_paths, target_file


def test_the_file_is_the_requests_own_else_its_targets() -> None:
    t = p.Target(symbol="f", path="billing/pricing.py")
    assert target_file(p.ConstructParams(target=t)) == ("billing/pricing.py", None)
    assert target_file(p.ConstructParams(path="./billing/pricing.py", target=t)) == (
        "./billing/pricing.py", None)
    both = p.ConstructParams(path="billing/pricing.py", target=p.Target(
        uri="file:///w/billing/pricing.py"))
    assert target_file(both) == ("billing/pricing.py", None)
    with pytest.raises(InvalidParams, match="name different files"):
        target_file(p.ConstructParams(path="auth/tokens.py", target=t))
    assert target_file(p.ReadRangeParams(1, 2, path="x.py")) == ("x.py", None)


def test_close_paths_same_name_first_then_near_spellings_and_nothing_far() -> None:
    listed = ["billing/tokens.py", "auth/tokens.py", "auth/session.py", "tests/test_tokens.py"]
    # the same name, most trailing folders in common first; then a near spelling
    assert close_paths("lib/auth/tokens.py", listed) == ["auth/tokens.py", "billing/tokens.py"]
    assert close_paths("tokens.py", listed) == [
        "auth/tokens.py", "billing/tokens.py", "tests/test_tokens.py"]
    assert close_paths("auth/tokns.py", listed) == ["auth/tokens.py", "billing/tokens.py"]
    assert close_paths("auth/missing.py", listed) == []  # a shared folder is not enough


def test_close_paths_compares_a_bounded_pool_same_folder_first() -> None:
    listed = [f"pkg/m{i}.py" for i in range(2 * CLOSE_POOL)] + ["auth/tokens.py"]
    assert close_paths("auth/tokns.py", listed) == ["auth/tokens.py"]
    assert close_paths("other/tokns.py", listed) == []  # beyond the pool: not compared
