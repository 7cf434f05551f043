"""The pure halves of naming a file: which file a request names, and close paths for one
that is missing."""

from __future__ import annotations

from pathlib import Path

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


def test_locating_many_at_once_agrees_with_locating_each(tmp_path: Path) -> None:
    """A checkout's changed files are located together, each folder's real path looked up
    once; links, `..` and paths outside are located in full, as one at a time."""
    from ctxls.errors import CtxError
    from ctxls.paths import locate, locate_many

    root = tmp_path / "ws"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "x.py").write_text("x = 1\n")
    (root / "a" / "y.py").write_text("y = 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("s = 1\n")
    (root / "link_out").symlink_to(outside)
    (root / "a" / "link_in").symlink_to(root / "a" / "b")
    (root / "a" / "file_link.py").symlink_to(outside / "secret.py")
    uris = [(root / "a" / "b" / "x.py").as_uri(), (root / "a" / "y.py").as_uri(),
            (root / "a" / "gone.py").as_uri(), (root / "link_out" / "secret.py").as_uri(),
            (root / "a" / "link_in" / "x.py").as_uri(), (root / "a" / "file_link.py").as_uri(),
            f"{(root / 'a').as_uri()}/../a/y.py", (outside / "secret.py").as_uri(),
            "untitled:Untitled-1"]
    one_by_one = []
    for uri in uris:
        try:
            one_by_one.append(locate([root], uri=uri))
        except CtxError:
            one_by_one.append(None)
    assert locate_many([root], uris) == one_by_one
    assert [x is not None for x in one_by_one] == [True, True, True, False, True, False,
                                                   True, False, False]


def test_a_prepared_params_class_is_structured_without_building_its_converter() -> None:
    """The warm-up builds each request's params converter, so a server's first request does
    not (cattrs writes and compiles one per class on first use)."""
    from ctxls import wire

    built: list[type] = []
    real = wire.make_dict_structure_fn

    def counting(cls: type, *args: object, **kwargs: object) -> object:
        built.append(cls)
        return real(cls, *args, **kwargs)  # type: ignore[arg-type]

    wire._converter.cache_clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(wire, "make_dict_structure_fn", counting)
        wire.prepare(p.ReadSymbolParams)
        assert p.ReadSymbolParams in built
        built.clear()
        params = wire.structure({"name": "a", "path": "m.py"}, p.ReadSymbolParams)
        assert built == [] and params.name == "a" and params.path == "m.py"
        wire.structure({"path": "m.py"}, p.SkeletonParams)  # one not prepared: built now
        assert built == [p.SkeletonParams]
        # a class inside a prepared one (an optional field's: cattrs builds it on first
        # use), after a list type's hook cleared cattrs's cache: built ahead as well
        wire.prepare(p.ConstructParams)
        assert p.Target in built
        wire._converter().get_structure_hook(list[p.Target])
        built.clear()
        params = wire.structure({"path": "m.py", "target": {"symbol": "f", "line": 3}},
                                p.ConstructParams)
        assert built == [] and params.target == p.Target(symbol="f", line=3)
    wire._converter.cache_clear()


def test_a_request_locates_each_path_once_and_the_next_request_again(tmp_path: Path) -> None:
    """A window names the same files many times: one request resolves each path once
    (each resolve walks the path's links); the next request resolves it afresh, so a link
    swapped in between requests is seen."""
    from ctxls import snapshot as snapshot_mod
    from ctxls.errors import OutsideWorkspace
    from ctxls.workspace import Workspace

    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "m.py").write_text("x = 1\n")
    (outside / "secret.py").write_text("k = 2\n")
    ws = Workspace([root])
    calls: list[str | None] = []
    real = snapshot_mod.locate

    def counting(roots: list[Path], path: str | None = None, uri: str | None = None) -> object:
        calls.append(path)
        return real(roots, path, uri)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(snapshot_mod, "locate", counting)
        snap = ws.snapshot()
        first = snap.locate(path="m.py")
        assert snap.locate(path="m.py") is first and snap.view_at("m.py").loc == first
        assert calls == ["m.py"]
        (root / "m.py").unlink()
        (root / "m.py").symlink_to(outside / "secret.py")  # swapped before the next request
        with pytest.raises(OutsideWorkspace):
            ws.snapshot().locate(path="m.py")
        assert calls == ["m.py", "m.py"]
