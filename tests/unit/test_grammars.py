"""Every grammars/ folder loads: its data file parses and its queries compile."""

from __future__ import annotations

from ctxls.syntax import languages


def test_every_grammar_folder_loads() -> None:
    folders = sorted(d.name for d in languages.grammars_dir().iterdir()
                     if (d / "language.toml").is_file() and not d.name.startswith("_"))
    assert languages.load_errors() == {}
    assert sorted(languages.registry()) == folders
    assert "python" in folders


def test_extensions_are_claimed_once() -> None:
    seen: dict[str, str] = {}
    for lang in languages.registry().values():
        for ext in lang.extensions:
            assert ext not in seen, f"{ext} claimed by {seen.get(ext)} and {lang.name}"
            seen[ext] = lang.name
