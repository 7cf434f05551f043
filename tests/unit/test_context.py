"""The pure stages of ctx/construct (spec 08 §3), each fed literals."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxls.context import budget, compress, dedup, gate, order, pool, render
from ctxls.context.construct import build
from ctxls.context.model import Evidence, Placed, Text, critical
from ctxls.tokens import tokenizer

count = tokenizer()


def ev(relation: str, kind: str | None = None, *, source: str | None = None,
       path: str | None = "m.py", symbol: str | None = None, key: str = "",
       renderings: dict[str, Text] | None = None, **kw: object) -> Evidence:
    """An item of ``relation``; its role, and unless given its kind and source, come from
    the relations table."""
    r = renderings if renderings is not None else {
        "verbatim": Text("1 | def f():\n2 |     return 1\n", ((0, 1),)),
        "signature": Text("1 | def f():\n", ((0, 0),)),
        "name": Text("m.py:1 function f\n")}
    given = {k: v for k, v in (("kind", kind), ("source", source)) if v is not None}
    return Evidence(relation=relation, provenance="test", renderings=r,  # type: ignore[arg-type]
                    path=path, symbol=symbol, key=key, **given, **kw)


def numbered(first: int, lines: list[str]) -> Text:
    text = "".join(f"{first + i + 1:>3} | {line}\n" for i, line in enumerate(lines))
    return Text(text, ((first, first + len(lines) - 1),))


# ---- (a) pool ---------------------------------------------------------------------------
def test_pool_numbers_caps_and_queues_by_source_priority() -> None:
    big = Text("x" * 9000 + "\n")
    items = [ev("target", "changed_entity", source="05", renderings={"verbatim": big})]
    items += [ev("retrieved", "retrieved_hit", source="04") for _ in range(300)]
    items.append(ev("plan", "plan_node", source="07"))
    items[0] = attrs.evolve(items[0], provenance="p" * 500)
    got, queued = pool.assemble(items)
    assert [e.id for e in got[:2]] == ["E1", "E2"]  # pool order, numbered from 1
    assert len(got) == 256 and len(queued) == len(items) - 256
    assert {e.source for e in got} == {"05", "04", "07"}
    assert all(e.source == "04" for e in queued)  # the lowest priority here waits
    assert len(got[0].content.encode()) <= 8192 and "capped at 8192 bytes" in got[0].content
    assert len(got[0].provenance) == 200


def test_pool_refuses_kinds_outside_the_closed_set() -> None:
    with pytest.raises(ValueError, match="closed set"):
        pool.assemble([ev("dependency", kind="opinion")])


# ---- (b) gate ---------------------------------------------------------------------------
def test_gate_drivers_residue_and_rejection() -> None:
    items, _ = pool.assemble([
        ev("target", "changed_entity", source="05", key="m.py::f"),
        ev("dependency", key="m.py::g"),
        ev("caller", "graph_edge", source="06", key="c.py:3"),
        ev("candidate-caller", "graph_edge", source="06", key="d.py:9"),
        ev("live", "traceback", source="live", path=None),
        ev("retrieved", "retrieved_hit", source="04", key="m.py::g", score=0.2),
        ev("retrieved", "retrieved_hit", source="04", key="x.py::h", score=0.9),
    ])
    admitted, residue, log = gate.admit(items)
    by = {d.id: d for d in log}
    assert [e.id for e in admitted] == ["E1", "E2", "E3", "E5", "E6"]
    assert [e.id for e in residue] == ["E7"]
    assert (by["E1"].driver, by["E3"].driver, by["E5"].driver) == ("obligation", "impact", "live")
    assert by["E4"].decision == "rejected" and "unknown type" in by["E4"].reason
    assert by["E6"].decision == "admitted"  # a hit on a linked definition
    taken, why = gate.settle_residue(residue, 0)
    assert taken == [] and why[0].decision == "rejected"
    taken, why = gate.settle_residue(residue, 100)
    assert taken == residue and why[0].decision == "residue-admitted"


def test_gate_caps_admission_at_64_by_source_priority() -> None:
    items, _ = pool.assemble([ev("test", "downstream_obligation", source="06", key=f"t{i}")
                              for i in range(60)]
                             + [ev("dependency", key=f"d{i}") for i in range(10)])
    admitted, _, log = gate.admit(items)
    assert len(admitted) == 64
    assert sum(1 for e in admitted if e.source == "03") == 4  # 03 ranks below 06
    assert sum(1 for d in log if d.decision == "rejected" and "cap of 64" in d.reason) == 6


# ---- (c) representation -----------------------------------------------------------------
@pytest.mark.parametrize(("kind", "relation", "want"), [
    ("changed_entity", "target", "verbatim"),
    ("symbol", "dependency", "signature"),
    ("graph_edge", "caller", "signature"),
    ("downstream_obligation", "test", "name"),
    ("downstream_obligation", "named-test", "verbatim"),
    ("traceback", "live", "verbatim"),
])
def test_the_representation_table(kind: str, relation: str, want: str) -> None:
    assert render.choose(ev(relation, kind), "edit", frozenset()) == (want, False)


def test_representation_misses_intents_and_reasoned_tests() -> None:
    assert render.choose(ev("dependency", "config"), "edit", frozenset()) == ("signature", True)
    assert render.choose(ev("target", "changed_entity"), "rename", frozenset())[0] == \
        "signature"
    assert render.choose(ev("test", "downstream_obligation", key="t"), "edit",
                         frozenset({"t"}))[0] == "verbatim"
    assert render.choose(ev("live", "tool_output", superseded=True), "edit",
                         frozenset())[0] == "omitted"
    only_name = ev("dependency", renderings={"name": Text("m.py:1 f\n")})
    assert render.choose(only_name, "edit", frozenset())[0] == "name"


# ---- (d) compression ----------------------------------------------------------------------
def test_sliding_window_keeps_the_lines_that_overlap_the_decision() -> None:
    lines = [f"filler_{i} = {i}" for i in range(40)]
    lines[25:28] = ["grace = REFRESH_GRACE", "if expired(token, grace):", "    refresh()"]
    cut = compress.sliding_window(numbered(100, lines), compress.terms("refresh grace period"),
                                  40, count, "[window]")
    assert cut is not None and "REFRESH_GRACE" in cut.text and cut.text.startswith("[window]")
    assert count(cut.text) <= 40
    a, b = cut.shown[0]
    assert a <= 125 <= 127 <= b and cut.shown == compress.rows_of(cut.text.splitlines())


def test_tail_keeps_the_end_of_a_failing_output() -> None:
    out = Text("".join(f"line {i}\n" for i in range(200)) + "AssertionError: 3 != 4\n")
    cut = compress.tail(out, 30, count, "[cut]")
    assert cut is not None and cut.text.rstrip().endswith("AssertionError: 3 != 4")
    assert count(cut.text) <= 30 and "line 0\n" not in cut.text


# ---- (e) dedup --------------------------------------------------------------------------
def test_dedup_keeps_the_strongest_role_and_points_the_rest() -> None:
    target = Placed(ev("target", "changed_entity", key="m.py::f", symbol="f",
                       obligations=("O1",)), "verbatim")
    dep = Placed(ev("dependency", key="m.py::f", symbol="f", obligations=("O2",)), "signature")
    hit = Placed(ev("retrieved", "retrieved_hit", key="m.py::f"), "signature")
    shown = Placed(ev("dependency", key="m.py::g", symbol="g",
                      renderings={"signature": Text("1 | def f():\n", ((0, 0),))}), "signature")
    hit, dep, target, shown = (attrs.evolve(p, item=attrs.evolve(p.item, id=f"E{i}"))
                               for i, p in enumerate([hit, dep, target, shown], 1))
    out, pairs = dedup.collapse([hit, dep, target, shown])
    assert out[2].pointer_to is None and set(out[2].item.obligations) == {"O1", "O2"}
    assert (out[0].pointer_to, out[1].pointer_to) == (target.item.id, target.item.id)
    assert out[3].pointer_to == target.item.id  # its one line is inside the target's lines
    assert len(pairs) == 3


def test_the_same_output_twice_survives_as_its_freshest_failure() -> None:
    text = {"verbatim": Text("ValueError: boom\n"), "pointer": Text("[masked]\n")}
    items = [Placed(attrs.evolve(ev("live", k, source="live", path=None,
                                    key="live:same", order=o, renderings=text), id=f"E{o}"),
                    "verbatim")
             for k, o in [("tool_output", 1), ("traceback", 2), ("tool_output", 3)]]
    out, pairs = dedup.collapse(items)
    assert [p.pointer_to for p in out] == ["E2", None, "E2"]
    assert sorted(pairs) == [("E1", "E2"), ("E3", "E2")]


# ---- (f) order ----------------------------------------------------------------------------
def test_order_puts_critical_content_at_the_edges() -> None:
    items = [Placed(ev(r, k, order=o, key=f"{r}{o}", path=None), rend)
             for r, k, o, rend in [
                 ("caller", "graph_edge", 0, "signature"),
                 ("live", "test_output", 2, "verbatim"),
                 ("target", "changed_entity", 0, "verbatim"),
                 ("live", "tool_output", 3, "verbatim"),
                 ("task", "plan_node", 0, "verbatim"),
                 ("test", "downstream_obligation", 0, "name"),
             ]]
    placed = order.place(items)
    assert [p.item.relation for p in placed][:2] == ["task", "target"]
    assert placed[-1].item.kind == "test_output"  # the freshest failure ends the window
    assert {p.placement for p in placed if p.item.relation in ("caller", "test")} == {"middle"}


def test_a_review_ends_with_the_patch_it_judges() -> None:
    items = [Placed(ev("live", k, order=o, key=f"l{o}", path=None), "verbatim")
             for k, o in [("patch", 2), ("test_output", 1), ("tool_output", 3)]]
    assert order.place(items)[-1].item.kind == "test_output"  # edit: the failure ends it
    assert order.place(items, critical("review"))[-1].item.kind == "patch"


# ---- (g) budget -------------------------------------------------------------------------
def _window(n_tests: int = 12) -> list[Placed]:
    body = [f"    value_{i} = compute(value_{i - 1})" for i in range(1, 120)]
    items = [
        Placed(ev("task", "plan_node", source="07", path=None,
                  renderings={"verbatim": Text("Make refresh honour the grace period.\n")}),
               "verbatim"),
        Placed(ev("target", "changed_entity", source="05", symbol="f",
                  renderings={"verbatim": numbered(0, ["def f():", *body]),
                              "signature": numbered(0, ["def f():"])}), "verbatim"),
    ]
    items += [Placed(ev("test", "downstream_obligation", source="06",
                        path="t.py", key=f"t{i}", renderings={
                            "verbatim": numbered(10 * i, [f"def test_{i}():", *body[:8]]),
                            "name": Text(f"t.py:{10 * i + 1} test_{i}\n")}), "verbatim")
              for i in range(n_tests)]
    items += [Placed(ev("live", "tool_output", source="live", path=None, order=i,
                        renderings={"verbatim": Text("ok\n" * 300),
                                    "pointer": Text("[tool output masked]\n")}), "verbatim")
              for i in range(2)]
    items.append(Placed(ev("live", "traceback", source="live", path=None,
                           order=5, renderings={"verbatim": Text(
                               "".join(f"  frame {i}\n" for i in range(300))
                               + "ValueError: grace\n")}), "verbatim"))
    items = [attrs.evolve(p, item=attrs.evolve(p.item, id=f"E{i}"))
             for i, p in enumerate(items, 1)]
    return order.place(items)


def test_budget_under_pressure_logs_the_ladder_and_fits() -> None:
    out = budget.fit(_window(), 1200, None, count, compress.terms("grace refresh"))
    assert out.tokens <= 1200
    steps = {s.step for s in out.steps}
    assert {"reserve", "transient:tail", "working-set:downgrade"} <= steps
    assert "transient:mask" in steps or any("older live" in why for _, why in out.omitted)
    assert out.window[0].item.relation == "task"
    assert out.window[-1].item.kind == "traceback"  # the freshest failure still ends it
    assert out.window[-1].text.rstrip().endswith("ValueError: grace")
    assert out.omitted  # what did not fit is listed, not silently dropped


def test_budget_protects_the_patch_in_a_review() -> None:
    items = _window()
    patch = "".join(f"+    grace_{i} = clock.now()\n" for i in range(200))
    items.insert(-1, Placed(ev("live", "patch", source="live", path=None,
                               order=6, renderings={"verbatim": Text(patch),
                                                    "pointer": Text("[patch masked]\n")}),
                            "verbatim"))
    items = order.place([attrs.evolve(p, item=attrs.evolve(p.item, id=f"E{i}"))
                         for i, p in enumerate(items, 1)], critical("review"))
    out = budget.fit(items, 1200, None, count, compress.terms("grace"), critical("review"))
    assert out.tokens <= 1200
    assert out.window[-1].item.kind == "patch" and "grace_199" in out.window[-1].text
    edit = budget.fit(order.place(items), 1200, None, count, compress.terms("grace"))
    assert edit.window[-1].item.kind == "traceback"
    assert not any("grace_199" in p.text for p in edit.window)  # masked or omitted


def test_unspent_tokens_lift_a_demoted_target_back_up_its_ladder() -> None:
    body = [f"    value_{i} = compute(value_{i - 1})" for i in range(1, 400)]
    body[5] = "    zeta = grace(zeta)"  # the task's terms are near the top
    target = ev("target", "changed_entity", source="05", symbol="f",
                renderings={"verbatim": numbered(0, ["def f():", *body]),
                            "excerpt": numbered(0, ["def f():", *body[:60]]),
                            "signature": numbered(0, ["def f():"])})
    task = ev("task", "plan_node", source="07", path=None,
              renderings={"verbatim": Text("Make f honour the grace period.\n")})
    used = ev("dependency", key="m.py::g", renderings={  # the excerpt's last line
        "signature": numbered(60, [body[59]]), "name": Text("m.py:61 g\n")})
    placed, _ = dedup.collapse([Placed(attrs.evolve(e, id=f"E{i}"), r) for i, (e, r) in
                                enumerate([(task, "verbatim"), (target, "verbatim"),
                                           (used, "signature")], 1)])
    items = order.place(placed)
    assert items[2].pointer_to == "E2"
    excerpt = count(budget.compose(attrs.evolve(items[1], rendering="excerpt")))
    ceiling = 2000
    assert excerpt > ceiling * 25 // 70 and excerpt < ceiling - 100  # over its share only
    out = budget.fit(items, ceiling, None, count, compress.terms("zeta grace"))
    assert out.tokens <= ceiling
    assert out.window[1].rendering == "excerpt"
    assert any(s.step == "upgrade" and s.item == "E2" for s in out.steps)
    steps = [(s.step, s.item) for s in out.steps]
    assert ("restore", "E3") in steps  # shown on its own while E2 was cut, then...
    assert ("re-point", "E3") in steps
    assert out.window[2].pointer_to == "E2"  # ...a pointer again: E2 shows its line


def test_budget_roomy_window_keeps_everything_verbatim() -> None:
    out = budget.fit(_window(3), 24_000, None, count, frozenset())
    assert not out.omitted and {p.rendering for p in out.window} == {"verbatim"}
    assert any(s.step == "flow" for s in out.steps)  # unspent reservation flowed down
    assert out.tokens == count(out.text)


def test_budget_core_alone_over_the_ceiling_is_emitted_alone_and_flagged() -> None:
    items = _window(1)
    items[0] = attrs.evolve(items[0], item=attrs.evolve(items[0].item, renderings={
        "verbatim": Text("refresh grace " * 400 + "\n")}))
    out = budget.fit(items, 300, None, count, compress.terms("refresh grace"))
    assert out.flagged and out.tokens <= 300
    assert [p.item.relation for p in out.window] == ["task"]


def test_explicit_reservations_override_the_shares() -> None:
    out = budget.fit(_window(6), 3000, {"tests": 0, "target": 2500}, count, frozenset())
    assert not [p for p in out.window if p.item.role == "tests" and p.rendering == "verbatim"]
    assert "tests 0" in out.steps[0].detail or any("tests 0" in s.detail for s in out.steps)


@settings(max_examples=60, deadline=None)
@given(ceiling=st.integers(min_value=256, max_value=5000), tests=st.integers(0, 20),
       task_words=st.integers(1, 600))
def test_the_window_never_exceeds_its_ceiling(ceiling: int, tests: int,
                                              task_words: int) -> None:
    items = _window(tests)
    items[0] = attrs.evolve(items[0], item=attrs.evolve(items[0].item, renderings={
        "verbatim": Text("grace " * task_words + "\n")}))
    out = budget.fit(items, ceiling, None, count, compress.terms("grace"))
    assert out.tokens <= ceiling and out.tokens == count(out.text)
    assert out.window and out.window[0].item.relation == "task"


def test_build_runs_every_stage_in_order() -> None:
    cands = [ev("task", "plan_node", source="07", path=None,
                renderings={"verbatim": Text("do it\n")}),
             ev("target", "changed_entity", source="05", key="m.py::f"),
             ev("dependency", key="m.py::f"),  # the same fact: a pointer
             ev("retrieved", "retrieved_hit", source="04", key="z.py::q",
                path="z.py", score=0.4)]
    built = build(cands, intent="edit", ceiling=2000, reservations=None, count=count,
                  decision_terms=frozenset())
    assert [p.item.id for p in built.outcome.window] == ["E1", "E2", "E3", "E4"]
    assert built.pointers == [("E3", "E2")]
    assert {d.id: d.decision for d in built.gate_log}["E4"] == "residue-admitted"
    none = build(cands, intent="edit", ceiling=2000, reservations={"retrieved": 0},
                 count=count, decision_terms=frozenset())
    assert {d.id: d.decision for d in none.gate_log}["E4"] == "rejected"


def test_a_pointer_with_no_room_is_omitted_not_a_crash() -> None:
    items = _window(2)
    dup = attrs.evolve(items[2], rendering="pointer", pointer_to=items[1].item.id,
                       item=attrs.evolve(items[2].item, id="E99"))
    out = budget.fit([*items, dup], 260, {"tests": 1}, count, frozenset())
    assert out.tokens <= 260


def test_a_pointer_whose_survivor_is_demoted_shows_its_own_lines() -> None:
    body = [f"    v{i} = g(v{i - 1})" for i in range(1, 200)]
    target = Placed(ev("target", "changed_entity", source="05", symbol="f",
                       key="m.py::f", renderings={
                           "verbatim": numbered(0, ["K = 1", "def f():", *body]),
                           "signature": numbered(1, ["def f():"])}), "verbatim")
    const = Placed(ev("dependency", source="03", symbol="K", key="m.py::K",
                      renderings={"signature": numbered(0, ["K = 1"])}), "signature")
    items = [attrs.evolve(p, item=attrs.evolve(p.item, id=f"E{i}"))
             for i, p in enumerate([target, const], 1)]
    items, pairs = dedup.collapse(items)
    assert pairs == [("E2", "E1")]
    out = budget.fit(order.place(items), 400, None, count, frozenset())
    kept = {p.item.id: p for p in out.window}
    assert kept["E1"].rendering != "verbatim"  # the target did not fit whole
    assert kept["E2"].pointer_to is None and "K = 1" in kept["E2"].text
    assert any(s.step == "restore" for s in out.steps)
    roomy = budget.fit(order.place(items), 24_000, None, count, frozenset())
    assert {p.item.id: p for p in roomy.window}["E2"].pointer_to == "E1"


def test_a_rendering_far_over_its_room_is_counted_only_past_the_room() -> None:
    """A target shown whole from a 17,000-line file was counted before the ladder moved on
    (75 ms): it is counted only until it passes the room, the step down says what it saved
    at least, and the rendering kept is counted exactly."""
    from ctxls import tokens

    body = [f"value_{i} = compute(value_{i - 1})  # step {i}" for i in range(1, 3000)]
    whole = numbered(0, ["def f():", *body])
    target = Placed(ev("target", "changed_entity", source="05", symbol="f", renderings={
        "verbatim": whole, "signature": numbered(0, ["def f():"])}), "verbatim")
    encoded: list[int] = []

    class Recording(tokens.Tokenizer):
        def _counted(self, key: tuple[int, int], text: str) -> int:
            encoded.append(len(text))
            return super()._counted(key, text)

    tok = Recording()
    bounded: list[tuple[int, int, bool]] = []  # (length, what it encoded, exact)
    count_to = tok.count_to

    def recorded(text: str, bound: int | None) -> tuple[int, bool]:
        before = sum(encoded)
        n, exact = count_to(text, bound)
        bounded.append((len(text), sum(encoded) - before, exact))
        return n, exact

    tok.count_to = recorded  # type: ignore[method-assign]
    steps: list[budget.Step] = []
    kept = budget._fit_item(target, 2000, tok, frozenset(), steps,
                            lambda p: tok(budget.compose(p)) + 1)
    assert kept is not None and kept.rendering == "signature"
    length, spent, exact = bounded[0]
    assert length > len(whole.text) and spent < len(whole.text) // 10 and not exact
    (step,) = steps
    least, _ = count_to(budget.compose(target), 1999)
    assert "at least" in step.detail and step.tokens == count(budget.compose(kept)) - least
    assert step.tokens > -(count(budget.compose(target)) + 1)  # (a saving not overstated)
