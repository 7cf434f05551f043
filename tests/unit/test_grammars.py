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


def test_names_without_compiling_agree_with_the_compiled_languages() -> None:
    exts = {ext for lang in languages.registry().values() for ext in lang.extensions}
    exts |= {".c", ".lua", ".zig", ".txt", ".md", "", ".PY"}
    for ext in sorted(exts):
        lang = languages.for_path(f"src/file{ext}")
        assert languages.name_for(f"src/file{ext}") == (lang.name if lang else None), ext


def test_module_styles_without_compiling_agree_with_the_compiled_languages() -> None:
    for lang in [*languages.registry().values(), None]:
        for ext in lang.extensions if lang else (".txt", ".c"):
            want = lang.module_style if lang and lang.refs_query is not None else None
            assert languages.module_style(f"a/b{ext}") == want, ext
