"""The context policy file: parsing, and problems with line numbers (seed 003)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ctxls.policy import parse

TODAY = dt.date(2026, 11, 29)
FILES = ["billing/invoice_pb2.py", "proto/billing/invoice.proto", "vendor/httpclient/client.py",
         "experiments/old_pricing.py", "billing/pricing.py"]

SEED = (Path(__file__).resolve().parents[1] / "fixtures" / "policy"
        / "context-policy.yaml").read_text()


def test_the_seed_policy_parses_with_one_warning() -> None:
    p = parse(SEED, TODAY, FILES)
    assert (p.version, p.first_turn_ceiling, p.found) == (4, 70000, True)
    assert p.roles == ("target", "tests", "interfaces", "call_sites", "retrieved")
    gen, vendor = p.rules
    assert gen.include_instead == "proto/**/*.proto" and gen.view == "none" and gen.line == 6
    assert (vendor.view, vendor.writable, vendor.review_by) == ("interface", False,
                                                                dt.date(2026, 11, 1))
    assert [(x.line, x.severity, x.message) for x in p.problems] == [
        (10, "warning", "review_by 2026-11-01 has passed: re-check this exception")]
    assert p.rule_for("billing/invoice_pb2.py") is gen
    assert p.rule_for("vendor/httpclient/client.py") is vendor
    assert p.rule_for("billing/pricing.py") is None


def test_unknown_keys_wrong_types_bad_views_and_unmatched_globs_are_reported() -> None:
    text = ("version: four\nceiling: 5\nroles:\n  - name: target\n    reservation: 25000\n"
            "  - tests\nexclude:\n  - glob: \"nothing/**\"\n  - glob: \"vendor/**\"\n"
            "    view: hidden\n  - glob: \"experiments/**\"\n    writable: maybe\n"
            "    colour: red\n  - reason: no glob\n")
    p = parse(text, TODAY, FILES)
    got = {(x.line, x.severity, x.message.split(";")[0]) for x in p.problems}
    assert (0, "error", "`version` must be an integer") in got
    assert (1, "error", "unknown key `ceiling`") in got
    assert (7, "warning", "glob `nothing/**` matches no file") in got
    assert any(line == 8 and "`view` must be one of" in m for line, _, m in got)
    assert (11, "error", "`writable` must be true or false") in got
    assert (12, "error", "unknown key `colour` in exclude #3") in got
    assert (13, "error", "exclude #4 needs a `glob`") in got
    assert p.reservations == {"target": 25000} and p.roles == ("target", "tests")
    assert [r.glob for r in p.rules] == ["nothing/**"]


def test_not_yaml_and_no_file() -> None:
    p = parse("exclude: [\n", TODAY)
    assert p.problems and p.problems[0].message.startswith("not valid YAML")
    assert parse("", TODAY).rules == ()
