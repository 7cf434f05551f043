"""The context policy file, ``.agent/context-policy.yaml``.

A repository states, versioned with its code, what enters an agent's context and how: the
first-turn ceiling, the roles and their reservations, and exceptions (``exclude`` rules).
This module parses and checks the file; problems carry line numbers, like a linter's, so
the server can publish them as diagnostics on the file itself. Pure: text in, ``Policy``
out. A missing file means the defaults.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

import attrs
import pathspec
import yaml

from ctxls.paths import Escaped, read_inside

POLICY_PATH = ".agent/context-policy.yaml"
VIEWS = ("interface", "names", "none")
TOP_KEYS = {"version": int, "first_turn_ceiling": int, "roles": list, "exclude": list}
RULE_KEYS = {"glob": str, "include_instead": str, "view": str, "writable": bool,
             "reason": str, "owner": str, "review_by": str}


@attrs.frozen
class Problem:
    line: int  # 0-based
    severity: str  # error | warning
    message: str


@attrs.frozen
class Rule:
    index: int  # 1-based position in `exclude`
    line: int  # 0-based line of the rule in the file
    glob: str
    spec: pathspec.GitIgnoreSpec = attrs.field(eq=False, repr=False)
    include_instead: str | None = None
    view: str = "none"  # interface | names | none
    writable: bool = True
    reason: str = ""
    owner: str = ""
    review_by: dt.date | None = None

    def matches(self, path: str) -> bool:
        return self.spec.match_file(path)

    def describe(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        return f"{POLICY_PATH} exclude #{self.index} `{self.glob}` (line {self.line + 1}){why}"


@attrs.frozen
class Policy:
    version: int | None = None
    first_turn_ceiling: int | None = None
    roles: tuple[str, ...] = ()
    reservations: dict[str, int] = attrs.field(factory=dict)
    rules: tuple[Rule, ...] = ()
    problems: tuple[Problem, ...] = ()
    found: bool = False  # a policy file exists

    def rule_for(self, path: str) -> Rule | None:
        """The first rule whose glob matches ``path`` (workspace-relative, POSIX)."""
        return next((r for r in self.rules if r.matches(path)), None)


def _type_name(t: type) -> str:
    return {int: "an integer", str: "a string", bool: "true or false", list: "a list"}[t]


def _scalar(node: yaml.Node) -> object:
    """A scalar node's value with YAML 1.1's implicit types, as the loader would give."""
    return yaml.safe_load(yaml.serialize(node))


def parse(text: str, today: dt.date, files: Iterable[str] = ()) -> Policy:
    """The policy in ``text``, with every problem found. ``files`` (workspace-relative
    paths) lets a glob that matches none of them be reported."""
    problems: list[Problem] = []
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return Policy(problems=(Problem(mark.line if mark else 0, "error",
                                        f"not valid YAML: {exc}"),), found=True)
    if root is None:
        return Policy(found=True)
    if not isinstance(root, yaml.MappingNode):
        return Policy(problems=(Problem(root.start_mark.line, "error",
                                        "the policy must be a mapping of keys"),), found=True)
    fields: dict[str, object] = {}
    rules: list[Rule] = []
    roles: list[str] = []
    reservations: dict[str, int] = {}
    listed = list(files)
    for key_node, value in root.value:
        key, line = key_node.value, key_node.start_mark.line
        if key not in TOP_KEYS:
            problems.append(Problem(line, "error", f"unknown key `{key}`; expected one of "
                                    + ", ".join(f"`{k}`" for k in TOP_KEYS)))
            continue
        want = TOP_KEYS[key]
        if want is list:
            if not isinstance(value, yaml.SequenceNode):
                problems.append(Problem(line, "error", f"`{key}` must be {_type_name(list)}"))
                continue
        else:
            got = _scalar(value)
            if not isinstance(got, want) or isinstance(got, bool):
                problems.append(Problem(line, "error", f"`{key}` must be {_type_name(want)}"))
                continue
            fields[key] = got
            continue
        if key == "roles":
            for item in value.value:
                if isinstance(item, yaml.ScalarNode):
                    roles.append(str(item.value))
                elif isinstance(item, yaml.MappingNode):
                    data = {k.value: _scalar(v) for k, v in item.value}
                    name, res = data.get("name"), data.get("reservation")
                    if not isinstance(name, str):
                        problems.append(Problem(item.start_mark.line, "error",
                                                "a role needs a `name`"))
                        continue
                    roles.append(name)
                    if res is not None:
                        if not isinstance(res, int) or isinstance(res, bool) or res < 0:
                            problems.append(Problem(item.start_mark.line, "error",
                                                    "`reservation` must be a token count"))
                        else:
                            reservations[name] = res
        else:
            for i, item in enumerate(value.value, 1):
                rule = _rule(i, item, problems, today, listed)
                if rule is not None:
                    rules.append(rule)
    version = fields.get("version")
    ceiling = fields.get("first_turn_ceiling")
    return Policy(version if isinstance(version, int) else None,
                  ceiling if isinstance(ceiling, int) else None, tuple(roles), reservations,
                  tuple(rules), tuple(problems), True)


def _rule(index: int, node: yaml.Node, problems: list[Problem], today: dt.date,
          files: list[str]) -> Rule | None:
    line = node.start_mark.line
    if not isinstance(node, yaml.MappingNode):
        problems.append(Problem(line, "error", f"exclude #{index} must be a mapping"))
        return None
    data: dict[str, object] = {}
    ok = True
    for k, v in node.value:
        if k.value not in RULE_KEYS:
            problems.append(Problem(k.start_mark.line, "error",
                                    f"unknown key `{k.value}` in exclude #{index}; expected "
                                    + ", ".join(f"`{x}`" for x in RULE_KEYS)))
            ok = False
            continue
        got = _scalar(v)
        if k.value == "review_by" and isinstance(got, dt.date):
            got = got.isoformat()
        if not isinstance(got, RULE_KEYS[k.value]):
            problems.append(Problem(k.start_mark.line, "error",
                                    f"`{k.value}` must be {_type_name(RULE_KEYS[k.value])}"))
            ok = False
            continue
        data[k.value] = got
    glob = data.get("glob")
    if not isinstance(glob, str) or not glob.strip():
        problems.append(Problem(line, "error", f"exclude #{index} needs a `glob`"))
        return None
    try:
        spec = pathspec.GitIgnoreSpec.from_lines([glob])
    except Exception as exc:  # pathspec raises its own pattern errors
        problems.append(Problem(line, "error", f"invalid glob `{glob}`: {exc}"))
        return None
    view = data.get("view", "none")
    if view not in VIEWS:
        problems.append(Problem(line, "error", "`view` must be one of "
                                + ", ".join(f"`{v}`" for v in VIEWS) + f", not `{view}`"))
        return None
    review: dt.date | None = None
    if "review_by" in data:
        try:
            review = dt.date.fromisoformat(str(data["review_by"]))
        except ValueError:
            problems.append(Problem(line, "error", "`review_by` must be a date, YYYY-MM-DD"))
            ok = False
    if review is not None and review < today:
        problems.append(Problem(line, "warning", f"review_by {review.isoformat()} has passed: "
                                "re-check this exception"))
    if files and not any(spec.match_file(f) for f in files):
        problems.append(Problem(line, "warning", f"glob `{glob}` matches no file"))
    if not ok:
        return None
    return Rule(index, line, glob, spec, data.get("include_instead"),  # type: ignore[arg-type]
                str(view), bool(data.get("writable", True)), str(data.get("reason", "")),
                str(data.get("owner", "")), review)


def load(root: Path, today: dt.date, files: Iterable[str] = ()) -> Policy:
    """The root's policy; a file that is a link out of the workspace is not read."""
    try:
        text = read_inside(root / POLICY_PATH, root).decode("utf-8", errors="replace")
    except Escaped:
        return Policy(problems=(Problem(0, "error", f"{POLICY_PATH} leads outside the "
                                        "workspace (a symbolic link?); it is not read"),),
                      found=True)
    except OSError:
        return Policy()
    return parse(text, today, files)


def patches_folder(glob: str) -> str:
    """The folder a glob's literal part names (``vendor/**`` -> ``vendor``)."""
    head = re.split(r"[*?\[]", glob, maxsplit=1)[0]
    return head.rstrip("/") if head.endswith("/") else head.rsplit("/", 1)[0] if "/" in head \
        else ""


def undocumented_patches(root: Path, rule: Rule) -> list[str]:
    """Commits that touched a vendored folder after it was imported and that its
    PATCHES.md does not mention (by short hash or subject): the fork nobody documented."""
    folder = patches_folder(rule.glob)
    if not folder:
        return []
    notes = root / folder / "PATCHES.md"
    if not notes.is_file():
        return []
    try:
        out = subprocess.run(["git", "-C", str(root), "log", "--format=%H\t%s", "--", folder],
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    try:
        text = read_inside(notes, root).decode("utf-8", errors="replace")
    except OSError:
        return []
    commits = [line.split("\t", 1) for line in out.splitlines() if "\t" in line]
    return [f"{folder}: commit {sha[:7]} \"{subject}\" is not in {folder}/PATCHES.md"
            for sha, subject in commits[:-1]  # the oldest one imported the code
            if sha[:7] not in text and subject not in text]


def report(lines: Iterable[str]) -> list[tuple[str, int, int, int]]:
    """(path, reads, runs that read it and ended, of which succeeded) from the context log,
    most requested first: the input for the next policy version."""
    reads: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    outcome: dict[str, bool] = {}
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("event") == "read":
            counts[rec["path"]] = counts.get(rec["path"], 0) + 1
            reads.setdefault(rec["path"], set()).add(str(rec.get("runId")))
        elif rec.get("event") == "outcome":
            outcome[str(rec.get("runId"))] = bool(rec.get("success"))
    rows = []
    for path, runs in reads.items():
        ended = [r for r in runs if r in outcome]
        rows.append((path, counts[path], len(ended), sum(1 for r in ended if outcome[r])))
    return sorted(rows, key=lambda r: (-r[1], r[0]))
