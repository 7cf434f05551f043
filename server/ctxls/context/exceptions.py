"""The repository's exceptions to what may enter a window (``.agent/context-policy.yaml``).

An excluded path never enters (its replacement may), an interface-view path enters as
signatures or names, and ``writable: false`` travels with every item from it. A generated
file is excluded without a rule, and the schema it was generated from is offered instead.
The target itself is never excluded: the agent is editing it.
"""

from __future__ import annotations

import re

import attrs
import pathspec

from ctxls.context.items import Collected, cut
from ctxls.context.model import Evidence, Text
from ctxls.index.chunks import generated
from ctxls.policy import POLICY_PATH, Rule, patches_folder
from ctxls.snapshot import Snapshot, View, stem_of

# Where a generated file's source may be: schemas whose stem is the generated file's own.
SOURCE_GLOBS = ("**/*.proto", "**/*.thrift", "**/*.graphql", "**/*.avsc")


def apply_policy(snap: Snapshot, out: Collected, v: View) -> None:
    policy = snap.policy(v.loc.root)
    out.notes += [f"{POLICY_PATH}:{x.line + 1}: {x.severity}: {x.message}"
                  for x in policy.problems if x.severity == "error"]
    instead: dict[str, tuple[tuple[str, ...], str]] = {}  # path -> (globs, why)
    made: dict[str, bool] = {}  # path -> written by a generator
    notes_for: dict[int, Rule] = {}  # interface-view rules that matched an item
    for i, e in enumerate(out.items):
        rule = policy.rule_for(e.path) if e.path else None
        if rule is None and e.path and e.relation != "target":
            if e.path not in made:
                gv = snap.view_at(e.path)
                made[e.path] = generated(gv.loc.path, gv.data, gv.lang)
            if made[e.path]:  # excluded by default, its schema offered instead
                why = "generated file (its name, a marker or minified lines): edits are reverted"
                out.items[i] = attrs.evolve(e, excluded_by=why, writable=False)
                instead.setdefault(e.path, (SOURCE_GLOBS, why))
            continue
        if rule is None:
            continue
        if e.relation == "target":
            out.items[i] = attrs.evolve(e, writable=rule.writable)
            out.notes.append(f"the target is under {rule.describe()}")
            continue
        if rule.view == "none":
            out.items[i] = attrs.evolve(e, excluded_by=rule.describe(), writable=rule.writable)
            if rule.include_instead and e.path:
                instead.setdefault(e.path, ((rule.include_instead,), rule.describe()))
        elif rule.view == "interface" and e.symbol and any(
                part.startswith("_") and not part.startswith("__")
                for part in e.symbol.split(".")):
            out.items[i] = attrs.evolve(e, excluded_by=f"{rule.describe()}: a private "
                                        "helper is not part of the interface",
                                        writable=rule.writable)
        else:
            out.items[i] = attrs.evolve(e, richest="signature" if rule.view == "interface"
                                        else "name", writable=rule.writable)
            if rule.view == "interface":
                notes_for.setdefault(rule.index, rule)
    for rule in notes_for.values():  # a vendored package's local patches travel with it
        folder = patches_folder(rule.glob)
        notes = v.loc.root / folder / "PATCHES.md" if folder else None
        if notes is None or not notes.is_file():
            continue
        pv = snap.view_at(f"{folder}/PATCHES.md")
        out.items.append(Evidence(
            relation="patches",
            provenance=f"policy: the local patches of {folder} ({rule.describe()})"[:200],
            renderings={"verbatim": cut(snap, pv, [(0, min(len(pv.lines), 80) - 1)]),
                        "name": Text(f"{pv.loc.path}\n")},
            path=pv.loc.path, key=f"{pv.loc.path}::patches", writable=False))
    for path, (globs, why) in instead.items():
        spec = pathspec.GitIgnoreSpec.from_lines(list(globs))
        stem = re.sub(r"(_pb2(_grpc)?|_pb|\.pb)$", "", stem_of(path))
        chosen = [f for f in snap.stemmed(stem, v.loc.root) if spec.match_file(f)]
        if not chosen and globs != SOURCE_GLOBS:  # a rule's replacement, by any name
            chosen = sorted(e.path for _, e in snap.entries()
                            if e.abspath.startswith(f"{v.loc.root}/")
                            and spec.match_file(e.path))[:3]
        for f in chosen:
            fv = snap.view_at(f)
            rows = [(0, min(len(fv.lines), 300) - 1)]
            out.items.append(Evidence(
                relation="instead", provenance=f"policy: in place of {path} ({why})"[:200],
                renderings={"verbatim": cut(snap, fv, rows), "name": Text(f"{fv.loc.path}\n")},
                path=fv.loc.path, key=f"{fv.loc.path}::instead"))
