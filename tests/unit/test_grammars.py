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


def test_module_systems_without_compiling_agree_with_the_compiled_languages() -> None:
    for lang in [*languages.registry().values(), None]:
        for ext in lang.extensions if lang else (".txt", ".c"):
            want = lang.module_system if lang and lang.refs_query is not None else None
            assert languages.module_system(f"a/b{ext}") == want, ext


STATE = {  # language: (a line that sets a field, one that mutates it in place, the name,
    #                  an assertion line, a line that asserts nothing)
    "python": ("self.count: int = 0", "self.items.append(x)", "items",
               "assert total == Money(1)", "total = price * qty"),
    "java": ("this.count = 0;", "this.items.add(x);", "items",
             "assertEquals(expected, total);", "int total = price * qty;"),
    "javascript": ("this.count = 0;", "this.items.push(x);", "items",
                   "expect(total).toBe(3);", "const total = price * qty;"),
    "typescript": ("this.count = 0;", "delete this.items[key];", "items",
                   "assert.equal(total, 3);", "const total: number = price * qty;"),
    "rust": ("self.count = 0;", "self.items.push(x);", "items",
             "assert_eq!(total, 3);", "let total = price * qty;"),
    "ruby": ("@count = 0", "@items << x", "items", "expect(total).to eq(3)",
             "total = price * qty"),
}


def test_field_and_assertion_patterns_per_language() -> None:
    from ctxls.syntax.languages import registry

    langs = registry()
    for name, (sets, mutates, field, asserts, plain) in STATE.items():
        lang = langs[name]
        assert lang.sets_field and lang.reads_field and lang.mutates_field and lang.assertion
        m = lang.sets_field.search(sets)
        assert m is not None and m.group(1) == "count", name
        assert lang.sets_field.search(sets.replace("= 0", "== 0")) is None, name
        assert field in {g for m in lang.mutates_field.finditer(mutates) for g in m.groups()}
        assert lang.mutates_field.search(f"x = {sets.split('=')[0].strip()}") is None, name
        assert lang.assertion.search(asserts) and not lang.assertion.search(plain), name
    go = langs["go"]  # no fixed receiver name: no field patterns, but testing.T asserts
    assert go.sets_field is None and go.assertion and go.assertion.search('t.Fatalf("x")')
