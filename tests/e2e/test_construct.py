"""ctx/construct over the real server, on the seed examples (seeds 000, 001, 003)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from ctxls.tokens import tokenizer

from .conftest import call, construct

count = tokenizer().count


def shown_rows(result: dict[str, Any], path: str) -> set[int]:
    return {row for item in result["window"] if item["path"] == path
            for r in item["shown"] for row in range(r["start"]["line"], r["end"]["line"] + 1)}


def shown_lines(result: dict[str, Any], root: Path, path: str) -> set[str]:
    """The original lines of ``path`` the window shows verbatim, read from the file itself
    by the ranges the result reports (independent of the rendered text)."""
    lines = (root / path).read_text().splitlines()
    return {lines[row] for row in shown_rows(result, path)}


def item(result: dict[str, Any], **match: Any) -> dict[str, Any]:
    found = [w for w in result["window"] if all(w.get(k) == v for k, v in match.items())]
    assert found, f"no window item with {match}"
    return found[0]


async def test_refresh_token_carries_the_files_rules(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    r = await construct(client, path="auth/tokens.py", target={"symbol": "refresh_token"},
                        task="Extend token refresh with a grace period")
    shown = shown_lines(r, root, "auth/tokens.py")
    assert any(line.startswith("REFRESH_DISABLED =") for line in shown)
    assert any(line.startswith("REFRESH_GRACE =") for line in shown)
    source = (root / "auth/tokens.py").read_text().splitlines()
    body = source[305:317]  # refresh_token, verbatim
    assert set(body) <= shown
    clock_rows = [row for row in shown_rows(r, "auth/tokens.py")
                  if "clock: Clock = system_clock" in source[row]]
    assert len(clock_rows) >= 6  # the injected clock is visible as a convention
    target = item(r, role="target")
    assert target["rendering"] == "verbatim" and target["placement"] == "front"
    tests = [w for w in r["window"] if w["role"] == "tests"]
    assert any("frozen_clock" in w["text"] for w in tests)  # the tests freeze time
    whole = count((root / "auth/tokens.py").read_text())
    assert r["tokenCount"] <= r["ceiling"] and target["tokens"] < whole
    assert r["text"].startswith("### E1 task\n")
    assert r["tokenCount"] == count(r["text"])
    stages = {k: v for k, v in r["timings"].items() if k != "total"}
    assert {"dependencies", "callers", "pipeline", "shape"} <= set(stages)
    assert all(v >= 0 for v in stages.values())
    assert sum(stages.values()) <= r["timings"]["total"] + 1  # (rounding of each stage)


async def test_evict_travels_with_the_class_invariant(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    r = await construct(vscode, path="billing/cache.py",
                        target={"symbol": "ShardedLRUCache._evict"},
                        task="Evict by tag as well as by age")
    shown = shown_lines(r, root, "billing/cache.py")
    assert any("Invariant: a key is removed from the shard's tag index" in x for x in shown)
    assert any("self._per_shard = " in x for x in shown)  # what __init__ sets on self
    assert any("__slots__ = (" in x for x in shown)
    assert any(x.strip().startswith("def _evict(") for x in shown)


async def test_compute_line_total_by_role(vscode: LanguageClient) -> None:
    r = await construct(vscode, path="billing/pricing.py",
                        target={"symbol": "compute_line_total"},
                        task="Bulk tiers should stack with coupons up to MAX_DISCOUNT")
    paths = {w["path"] for w in r["window"]}
    assert {"tests/test_pricing.py", "tests/conftest.py", "billing/money.py"} <= paths
    callers = {w["symbol"] for w in r["window"] if w["role"] == "call_sites"}
    assert {"Cart.subtotal", "InvoiceLine.total", "revenue_by_sku"} <= callers
    alias = item(r, role="call_sites", symbol="Cart.subtotal")
    assert "compute_line_total as line_total" in alias["text"] and "line_total(" in alias["text"]
    assert "pricing.compute_line_total(" in item(r, symbol="revenue_by_sku")["text"]
    assert not any((w["path"] or "").startswith("experiments/") for w in r["window"])
    assert "billing/ui.py" not in paths  # the UI formatter is no call site
    legacy = [w for w in r["window"] if w["symbol"] == "legacy_monthly_report"]
    assert all(w["rendering"] != "verbatim" for w in legacy)  # a call span, never the body
    conf = item(r, path="tests/conftest.py")
    assert "def assert_money_equal" in conf["text"] and "def make_money" in conf["text"]
    money = [w for w in r["window"] if w["path"] == "billing/money.py"]
    assert any("def from_minor_units" in w["text"] for w in money)  # interface view
    used = item(r, path="billing/money.py", symbol="Money")  # a class the target uses...
    assert "def from_minor_units" in used["text"]  # ...brings its public members
    assert "def _check" not in used["text"]
    assert all(w["rendering"] in ("signature", "name", "pointer") for w in money)
    assert any(w["rendering"] == "verbatim" and "assert_money_equal(" in w["text"]
               for w in r["window"] if w["role"] == "tests")  # how this repo asserts
    digest = item(r, rendering="digest")
    assert digest["text"].count("callers") == 1 and "tests" in digest["text"]
    for w in r["window"]:  # excerpts: no markers at their edges, a bare "..." in a gap
        if w["path"] and w["role"] in ("interfaces", "call_sites", "tests") and \
                w["rendering"] in ("signature", "verbatim") and not w.get("pointerTo"):
            body = [ln for ln in w["text"].splitlines() if not ln.startswith("###")]
            assert body and "|" in body[0] and body[0].split("|")[0].strip().isdigit(), w
            assert body[-1].split("|")[0].strip().isdigit(), w
            assert "lines elided" not in w["text"], w
    gate = {g["id"]: g for g in r["gateLog"]}
    assert all(gate[w["id"]]["decision"] in ("admitted", "residue-admitted")
               for w in r["window"])


async def test_rename_sends_the_whole_reference_list(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    r = await construct(vscode, path="billing/pricing.py",
                        target={"symbol": "_clamp_discount"}, intent="rename",
                        task="Rename _clamp_discount to _cap_discount")
    refs = item(r, role="call_sites", kind="graph_edge", rendering="name")
    src = (root / "billing/pricing.py").read_text().splitlines()
    calls = [i + 1 for i, line in enumerate(src)
             if "_clamp_discount(" in line and not line.lstrip().startswith("def ")]
    assert calls and all(f"billing/pricing.py:{n}:" in refs["text"] for n in calls)
    assert item(r, role="target")["rendering"] != "verbatim"  # no body: the list is the job


async def test_live_traceback_ends_the_window_and_overbudget_fits(vscode: LanguageClient
                                                                   ) -> None:
    trace = ("Traceback (most recent call last):\n"
             + "".join(f'  File "billing/pricing.py", line {80 + i}, in frame_{i}\n'
                       for i in range(400))
             + "AssertionError: Money('59.97', 'EUR') != Money('59.96', 'EUR')\n")
    r = await construct(vscode, path="billing/pricing.py",
                        target={"symbol": "compute_line_total"},
                        task="Fix the rounding of line totals", ceiling=1500,
                        live=[{"kind": "tool_output", "name": "ruff", "text": "ok\n" * 400},
                              {"kind": "test_output", "text": "old failure\n", "superseded": True},
                              {"kind": "traceback", "text": trace}])
    assert r["tokenCount"] <= 1500 and r["tokenCount"] == count(r["text"])
    last = r["window"][-1]
    assert last["kind"] == "traceback" and last["placement"] == "back"
    assert r["text"].rstrip().endswith("AssertionError: Money('59.97', 'EUR') != "
                                      "Money('59.96', 'EUR')")
    steps = [b["step"] for b in r["budgetLog"]]
    assert "transient:tail" in steps and "reserve" in steps
    assert any(s.startswith(("working-set:", "omit")) for s in steps)
    omitted = {o["id"]: o for o in r["omitted"]}
    assert omitted and all(o["reason"] for o in omitted.values())
    assert "old failure" not in r["text"]  # superseded history is omitted
    assert item(r, role="target")["placement"] == "front"


async def test_a_review_protects_and_ends_with_the_patch(vscode: LanguageClient) -> None:
    patch = ("--- a/billing/pricing.py\n+++ b/billing/pricing.py\n"
             + "".join(f"+    discount_{i} = quantize(discount_{i - 1})\n" for i in range(1, 120)))
    live = [{"kind": "patch", "text": patch},
            {"kind": "tool_output", "name": "ruff", "text": "ok\n" * 400}]
    params = dict(path="billing/pricing.py", target={"symbol": "compute_line_total"},
                  task="Review: discounts are quantized once per line", ceiling=1500, live=live)
    review = await construct(vscode, intent="review", **params)
    assert review["tokenCount"] <= 1500
    assert review["window"][-1]["kind"] == "patch"
    assert review["text"].rstrip().endswith("discount_119 = quantize(discount_118)")
    edit = await construct(vscode, **params)  # an edit masks an older patch under pressure
    assert "discount_119" not in edit["text"]


async def test_bad_params_get_clear_errors_and_the_server_keeps_serving(
        vscode: LanguageClient) -> None:
    from pygls.exceptions import JsonRpcException

    await call(vscode, "ctx/status", {"wait": True})
    for params, needle in [
        ({"path": "billing/pricing.py", "target": {"symbol": "compute_line_totl"}},
         "did you mean"),
        ({"path": "../outside.py", "target": {"symbol": "x"}}, "outside"),
        ({"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
          "intent": "refactor"}, "intent"),
        ({"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
          "ceiling": 10}, "ceiling"),
        ({"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
          "live": [{"kind": "vibes", "text": "x"}]}, r"live\[0\]\.kind"),
        ({"path": "billing/pricing.py"}, "target"),
    ]:
        with pytest.raises(JsonRpcException, match=needle):
            await call(vscode, "ctx/construct", params)
    r = await call(vscode, "ctx/construct", {"path": "billing/pricing.py",
                                             "target": {"symbol": "compute_line_total"},
                                             "retrieved": [{"path": "../../etc/passwd",
                                                            "score": 1.0}]})
    assert any("outside" in n for n in r["notes"])  # refused, never read
    assert r["tokenCount"] > 0


async def test_intent_state_sends_the_mutators_and_the_constructor(vscode: LanguageClient
                                                                    ) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    r = await construct(vscode, path="billing/cache.py",
                        target={"symbol": "ShardedLRUCache.put"}, intent="state",
                        task="Make put idempotent for the same key and value")
    state = {w["symbol"]: w for w in r["window"] if w["kind"] == "symbol"
             and w["role"] == "target"}
    assert "ShardedLRUCache.__init__" in state
    src = (root / "billing/cache.py").read_text().splitlines()
    mutators = {"ShardedLRUCache._evict", "ShardedLRUCache.invalidate_tag",
                "ShardedLRUCache.clear"}
    assert mutators <= set(state) | {w["symbol"] for w in r["window"]
                                     if w["pointerTo"] is not None}
    for w in state.values():  # in full, or at least their own lines
        assert w["rendering"] in ("verbatim", "pointer") or w["pointerTo"]
    assert "ShardedLRUCache.get" not in state  # reads only: not a mutator
    assert any("self._shards" in line for line in src)


async def test_obligations_named_tests_criteria_and_residue(vscode: LanguageClient) -> None:
    r = await construct(
        vscode, path="billing/pricing.py", target={"symbol": "compute_line_total"},
        task="Stack bulk tiers with coupons",
        obligations=[{"id": "O1", "text": "Coupons and bulk tiers stack, capped",
                      "targets": ["billing/pricing.py::bulk_discount_for"],
                      "tests": ["tests/test_pricing.py::test_discount_is_capped"]}],
        acceptanceCriteria=["A 10% coupon on 100 units gives 20% off", "Never above 90%"],
        retrieved=[{"path": "billing/ui.py", "symbol": "format_price_label", "score": 0.7,
                    "query": "price"},
                   {"path": "billing/pricing.py", "symbol": "bulk_discount_for",
                    "score": 0.9}])
    core = [w for w in r["window"] if w["role"] == "core"]
    assert [w["kind"] for w in core] == ["plan_node", "plan_node", "acceptance_criteria",
                                         "acceptance_criteria"]
    assert all(w["placement"] == "front" for w in core)
    named = item(r, symbol="test_discount_is_capped")
    assert named["rendering"] == "verbatim" and named["placement"] == "back"
    gate = {g["id"]: g for g in r["gateLog"]}
    ui = next(g for g in r["gateLog"] if g["path"] == "billing/ui.py")
    assert ui["decision"] == "residue-admitted" and "score 0.7" in ui["reason"]
    assert item(r, path="billing/ui.py")["role"] == "retrieved"
    hit = next(g for g in r["gateLog"] if g["kind"] == "retrieved_hit"
               and g["symbol"] == "bulk_discount_for")
    assert hit["decision"] == "admitted"  # linked: the obligation names it
    strict = await call(vscode, "ctx/construct", {
        "path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
        "retrieved": [{"path": "billing/ui.py", "symbol": "format_price_label", "score": 0.7}],
        "reservations": {"retrieved": 0}})
    assert not any(w["path"] == "billing/ui.py" for w in strict["window"])
    assert any(o["path"] == "billing/ui.py" for o in strict["omitted"])
    assert len(gate) == len(r["gateLog"])


async def test_target_by_position(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    src = (root / "billing/pricing.py").read_text().splitlines()
    row = next(i for i, line in enumerate(src) if "rate = _clamp_discount(" in line)
    r = await construct(vscode, path="billing/pricing.py",
                        target={"position": {"line": row, "character": 8}})
    assert r["target"] == "billing/pricing.py::compute_line_total"


async def test_target_by_line_alone(vscode: LanguageClient) -> None:
    from pygls.exceptions import JsonRpcException

    root: Path = vscode.root  # type: ignore[attr-defined]
    src = (root / "billing/pricing.py").read_text().splitlines()
    line = next(i for i, text in enumerate(src) if "rate = _clamp_discount(" in text) + 1
    r = await construct(vscode, path="billing/pricing.py", target={"line": line})
    assert r["target"] == "billing/pricing.py::compute_line_total"
    sk = await call(vscode, "ctx/skeleton", {"path": "billing/pricing.py",
                                             "target": {"line": line}})
    assert sk["target"] == "compute_line_total" and sk["mode"] == "skeleton"
    imports = src.index("from decimal import Decimal") + 1  # in no declaration
    with pytest.raises(JsonRpcException, match=f"no declaration at billing/pricing.py:"
                                               f"{imports}"):
        await call(vscode, "ctx/construct", {"path": "billing/pricing.py",
                                             "target": {"line": imports}})
    plain = await call(vscode, "ctx/skeleton", {"path": "billing/pricing.py",
                                                "target": {"line": imports}})
    assert plain["target"] is None
    for method in ("ctx/construct", "ctx/skeleton"):
        with pytest.raises(JsonRpcException, match="1-based"):
            await call(vscode, method, {"path": "billing/pricing.py", "target": {"line": 0}})


async def test_the_file_can_be_named_in_the_target(vscode: LanguageClient) -> None:
    from pygls.exceptions import JsonRpcException

    root: Path = vscode.root  # type: ignore[attr-defined]
    want = "billing/pricing.py::compute_line_total"
    by_path = await construct(vscode, target={"path": "billing/pricing.py",
                                              "symbol": "compute_line_total"})
    assert by_path["target"] == want
    uri = (root / "billing/pricing.py").as_uri()
    by_uri = await construct(vscode, target={"uri": uri, "symbol": "compute_line_total"})
    assert by_uri["target"] == want
    both = await construct(vscode, path="billing/pricing.py",
                           target={"uri": uri, "symbol": "compute_line_total"})
    assert both["target"] == want  # the same file named twice
    with pytest.raises(JsonRpcException, match="name different files"):
        await call(vscode, "ctx/construct", {"path": "auth/tokens.py", "target": {
            "path": "billing/pricing.py", "symbol": "compute_line_total"}})
    sk = await call(vscode, "ctx/skeleton", {"target": {"path": "billing/pricing.py",
                                                        "symbol": "compute_line_total"}})
    assert sk["path"] == "billing/pricing.py" and sk["target"] == "compute_line_total"


FILLER = "".join(f"    def helper_{i}(self) -> int:\n        x = {i}\n        y = x * 2\n"
                 f"        return x + y\n\n" for i in range(50))
METER = (
    "class Meter:\n"
    "    def __init__(self) -> None:\n"
    "        self.count = 0\n\n"
    "    def start(self) -> None:\n"
    "        self.started_at = 12\n"
    "        self.count += 1\n"
    "        self.count *= 1\n\n"
    + FILLER
    + "    def elapsed(self, now: int) -> int:\n"
    "        return now - self.started_at\n")


@pytest.mark.workspace_files({"billing/meter.py": METER})
async def test_attributes_set_outside_init_travel_with_a_method(vscode: LanguageClient
                                                                 ) -> None:
    r = await construct(vscode, path="billing/meter.py", target={"symbol": "Meter.elapsed"},
                        task="Return 0 before start")
    rows = shown_rows(r, "billing/meter.py")
    assert 5 in rows  # `self.started_at = 12`, set in start(), is shown
    fields = item(r, symbol="Meter.<fields>")
    assert fields["role"] == "target" and "self.started_at = 12" in fields["text"]


SHAPES = (
    "class Shape:\n"
    "    def __init__(self, name: str) -> None:\n"
    "        self.name = name\n\n"
    "    def area(self) -> float:\n"
    "        raise NotImplementedError\n\n\n"
    "class Square(Shape):\n"
    "    def __init__(self, side: float) -> None:\n"
    "        super().__init__('square')\n"
    "        self.side = side\n\n"
    "    def describe(self) -> str:\n"
    "        return f'{self.name}: {self.area()}'\n")


@pytest.mark.workspace_files({"billing/shapes.py": SHAPES})
async def test_a_methods_window_shows_its_project_base_classes(vscode: LanguageClient
                                                                ) -> None:
    r = await construct(vscode, path="billing/shapes.py",
                        target={"symbol": "Square.describe"}, task="Round the area")
    base = [w for w in r["window"] if w["symbol"] == "Shape" and w["role"] == "interfaces"]
    assert base, [(w["symbol"], w["role"]) for w in r["window"]]
    assert base[0]["pointerTo"] or "self.name = name" in base[0]["text"]


KINDS = ("class Cash:\n    pass\n\n\nclass Card:\n    pass\n\n\n"
         "def is_payment(x: object) -> bool:\n    return isinstance(x, (Cash, Card))\n")


@pytest.mark.workspace_files({"billing/kinds.py": KINDS})
async def test_dependencies_include_classes_named_but_not_called(vscode: LanguageClient
                                                                  ) -> None:
    await call(vscode, "ctx/status", {"wait": True})
    deps = await call(vscode, "ctx/dependencies", {"path": "billing/kinds.py",
                                                   "name": "is_payment"})
    named = {(d["symbol"], d["relation"]) for d in deps["dependencies"]}
    assert {("Cash", "name"), ("Card", "name")} <= named


ERRS = "class Declined(Exception):\n    \"\"\"The card was refused.\"\"\"\n"
PKG = "from billing.errs import Declined\n\nLIMIT = 5\n"
CHARGE = ("import billing\n\n\n"
          "def charge(card):\n    try:\n        return card.pay()\n"
          "    except billing.Declined:\n        return card.tries > billing.LIMIT\n")


@pytest.mark.workspace_files({"billing/errs.py": ERRS, "billing/__init__.py": PKG,
                              "billing/charge.py": CHARGE})
async def test_a_name_read_from_an_imported_module_is_a_dependency(vscode: LanguageClient
                                                                   ) -> None:
    """``billing.Declined`` is re-exported by the package: its definition is in errs.py."""
    await call(vscode, "ctx/status", {"wait": True})
    deps = await call(vscode, "ctx/dependencies", {"path": "billing/charge.py",
                                                   "name": "charge"})
    found = {(d["path"], d["symbol"], d["relation"]) for d in deps["dependencies"]}
    assert {("billing/errs.py", "Declined", "attribute"),
            ("billing/__init__.py", "LIMIT", "attribute")} <= found
    r = await construct(vscode, path="billing/charge.py", target={"symbol": "charge"})
    assert 0 in shown_rows(r, "billing/errs.py")  # the class's definition line


CONV = ("from typing import overload\n\n\n@overload\ndef to_cents(x: int) -> int: ...\n\n\n"
        "@overload\ndef to_cents(x: str) -> int: ...\n\n\n"
        "def to_cents(x):\n    \"\"\"Minor units.\"\"\"\n    return int(x)\n")
USE = ("from billing.conv import to_cents\n\n\n"
       "def total(xs):\n    return sum(to_cents(x) for x in xs)\n")


@pytest.mark.workspace_files({"billing/conv.py": CONV, "billing/use.py": USE})
async def test_an_overloaded_dependency_shows_its_implementation(vscode: LanguageClient) -> None:
    r = await construct(vscode, path="billing/use.py", target={"symbol": "total"})
    rows = shown_rows(r, "billing/conv.py")
    assert {4, 11} <= rows and 8 not in rows  # the first stub and the implementation


async def test_a_target_no_test_calls_gets_its_modules_own_test(vscode: LanguageClient
                                                                ) -> None:
    """No test calls `prorate`; tests/test_pricing.py (named after the module) still shows
    how this repository tests pricing: its test naming the most of the module's top-level
    declarations (by ``ast``) is shown whole."""
    import ast

    root = Path(__file__).resolve().parents[2] / "examples" / "workspace"
    module = ast.parse((root / "billing/pricing.py").read_text())
    names = {n.name for n in module.body
             if isinstance(n, ast.FunctionDef | ast.ClassDef)} | {
        t.id for n in module.body if isinstance(n, ast.Assign | ast.AnnAssign)
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if isinstance(t, ast.Name)}
    tests = ast.parse((root / "tests/test_pricing.py").read_text())
    assert not any(isinstance(c, ast.Call) and getattr(c.func, "id", "") == "prorate"
                   for c in ast.walk(tests))
    scored = [(len(names & {x.id for x in ast.walk(fn) if isinstance(x, ast.Name)}),
               -fn.lineno, fn.name) for fn in tests.body if isinstance(fn, ast.FunctionDef)]
    best = max(scored)[2]
    result = await construct(vscode, path="billing/pricing.py", target={"symbol": "prorate"},
                             task="Prorate by the hour", ceiling=8000)
    shown = [w for w in result["window"] if w["role"] == "tests" and w["symbol"] == best]
    assert shown and shown[0]["rendering"] == "verbatim", [
        (w["symbol"], w["rendering"]) for w in result["window"] if w["role"] == "tests"]
    assert "module's own tests" in shown[0]["provenance"]
    # A target that tests do call keeps its direct test as the one shown whole.
    direct = await construct(vscode, path="billing/pricing.py",
                             target={"symbol": "split_evenly"}, task="x", ceiling=8000)
    assert not any("module's own tests" in w["provenance"] for w in direct["window"])


async def test_ablation_flags_take_out_what_they_name(vscode: LanguageClient) -> None:
    """What each rule earns is measured by leaving it out: a role, a relation, a source."""
    base = {"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
            "task": "Bulk tiers should stack with coupons", "ceiling": 6000}
    full = await construct(vscode, **base)
    assert {"tests", "call_sites"} <= {w["role"] for w in full["window"]}
    for flag, gone in (("role:tests", lambda w: w["role"] == "tests"),
                       ("source:06", lambda w: w["role"] in ("tests", "call_sites")),
                       ("relation:dependency", lambda w: w["relation"] == "dependency")):
        cut = await call(vscode, "ctx/construct", {**base, "ablate": [flag]})
        assert not any(gone(w) for w in cut["window"]), flag
        assert cut["tokenCount"] < full["tokenCount"], flag
    with pytest.raises(Exception, match="`ablate` entries are"):
        await call(vscode, "ctx/construct", {**base, "ablate": ["tests"]})


FLAGS = "from enum import Enum\n\n\nclass Flag(Enum):\n" + "".join(
    f"    rule_{i} = {i}\n" for i in range(20)) + "    keep_blank_lines_after_header = 99\n"
USES = ("from billing.flags import Flag\n\n\n"
        "def spacing(mode):\n    return 1 if Flag.rule_3 in mode else 0\n")


@pytest.mark.workspace_files({"billing/flags.py": FLAGS, "billing/spacing.py": USES})
async def test_the_member_the_task_is_about_is_listed_among_a_few(vscode: LanguageClient
                                                                  ) -> None:
    """A class from another file shows a few of its 21 members: the one the body uses,
    then the one whose words the task shares, though no code names it yet."""
    r = await construct(vscode, path="billing/spacing.py", target={"symbol": "spacing"},
                        task="Keep blank lines after the module header")
    rows = shown_rows(r, "billing/flags.py")
    lines = FLAGS.splitlines()
    assert {lines.index("    rule_3 = 3"), lines.index("    keep_blank_lines_after_header = 99")
            } <= rows
    assert len(rows & set(range(4, 24))) < 20  # a few members, not all


FRONT = {"task", "target", "fields", "dependency", "base"}


def edges_held(window: list[dict[str, Any]]) -> bool:
    """Every front item (by its relation) comes before the first supporting item."""
    support = [i for i, w in enumerate(window) if w["relation"] not in FRONT | {"live"}]
    return all(i < (support[0] if support else len(window))
               for i, w in enumerate(window) if w["relation"] in FRONT)


async def test_the_target_and_what_it_uses_sit_at_the_front_unless_buried(
        vscode: LanguageClient) -> None:
    """The ordering's check and its probe: ``placement:edges`` moves the same items to the
    middle, and the check (on the relations, not on the reported placement) catches it."""
    base = {"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
            "task": "Bulk tiers should stack with coupons", "ceiling": 6000}
    full = await construct(vscode, **base)
    relations = [w["relation"] for w in full["window"]]
    assert {"target", "dependency"} <= set(relations) and edges_held(full["window"])
    buried = await call(vscode, "ctx/construct", {**base, "ablate": ["placement:edges"]})
    assert not edges_held(buried["window"])
    assert sorted(w["id"] for w in buried["window"]) == sorted(w["id"] for w in full["window"])
    assert buried["tokenCount"] == count(buried["text"]) <= 6000
    assert buried["text"].index("### " + next(
        w["id"] for w in buried["window"] if w["relation"] == "target")) > 0
    with pytest.raises(Exception, match="placement:edges"):
        await call(vscode, "ctx/construct", {**base, "ablate": ["placement:front"]})


@pytest.mark.workspace_files({
    "billing/tokens_table.py": "".join(f"T{i} = {i}\n" for i in range(30)),
    "billing/use_tokens.py": "from billing import tokens_table as tokens\n\n\ndef pick(x):\n"
                             "    return x in (tokens.T27, tokens.T3)\n\n\ndef other(x):\n"
                             "    return x in ("
                             + ", ".join(f"tokens.T{i}" for i in range(20)) + ")\n",
})
async def test_a_module_interface_lists_what_the_target_reads_first(vscode: LanguageClient
                                                                   ) -> None:
    """`tokens` has 30 names and its interface shows 12: the ones the target's body reads
    (`T27`, late in the file) come before the 20 its file's other function names."""
    result = await construct(vscode, path="billing/use_tokens.py", target={"symbol": "pick"},
                             task="x", ceiling=8000)
    shown = {(w["path"], line) for w in result["window"] if w["path"]
             for r in w["shown"] for line in range(r["start"]["line"], r["end"]["line"] + 1)}
    assert ("billing/tokens_table.py", 27) in shown and ("billing/tokens_table.py", 3) in shown
