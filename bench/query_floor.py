"""What a scan built on tree-sitter queries cannot go below: the query engine's own cost.

The cold scan parses each file, runs its language's scan query (outline.scm and
references.scm as one) and builds the tables from the matches. Issue 19 asks for a cold
scan at most 2x a bare parse. This measures, per language of a corpus and in compiled code
(no Python objects), where the time of the first two steps goes:

  - parse: tree-sitter's parser over the files' bytes;
  - query engine, a pattern that never matches (``(ERROR) @x``): the engine's walk alone;
  - scan query: the language's whole scan query, every match and capture read (its text
    predicates are not applied: the runtime leaves them to the binding);
  - cursor walk: every node visited with a tree cursor (what a hand-written extraction would
    pay to see each node once);
  - the Python binding's ``QueryCursor.matches`` over the same trees (what the scan runs),

each as seconds on one process and as a ratio to the parse. The compiled side is a small C
extension built here, against the tree-sitter runtime of the installed binding's own
version (its source distribution, from the package registry, into a temporary folder: it
needs gcc and Python's headers; nothing is kept).

    python bench/query_floor.py LANG:CORPUS [LANG:CORPUS ...]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path

import tree_sitter as ts
import tree_sitter_language_pack as pack

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import STDLIB  # noqa: F401  (sets up the environment benchmarks share)
from ctxls.index.walk import walk
from ctxls.syntax import languages
from ctxls.syntax.text import decode

PROBE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <time.h>
#include "tree_sitter/api.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* run(language capsule, query source, [bytes]) ->
   (parse s, query s, cursor walk s, matches, captures, checksum) */
static PyObject *run(PyObject *self, PyObject *args) {
    PyObject *capsule, *sources;
    const char *text;
    Py_ssize_t text_len;
    if (!PyArg_ParseTuple(args, "Os#O!", &capsule, &text, &text_len, &PyList_Type, &sources))
        return NULL;
    const TSLanguage *lang = PyCapsule_GetPointer(capsule, "tree_sitter.Language");
    if (lang == NULL) return NULL;
    uint32_t offset;
    TSQueryError error;
    TSQuery *query = ts_query_new(lang, text, (uint32_t)text_len, &offset, &error);
    if (query == NULL) {
        PyErr_Format(PyExc_ValueError, "query error %d at byte %u", (int)error, offset);
        return NULL;
    }
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, lang);
    TSQueryCursor *cursor = ts_query_cursor_new();
    double parse_s = 0, query_s = 0, walk_s = 0;
    long matches = 0, captures = 0, sum = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(sources); i++) {
        char *buf;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(PyList_GET_ITEM(sources, i), &buf, &len) < 0) break;
        double t0 = now();
        TSTree *tree = ts_parser_parse_string(parser, NULL, buf, (uint32_t)len);
        double t1 = now();
        ts_query_cursor_exec(cursor, query, ts_tree_root_node(tree));
        TSQueryMatch m;
        while (ts_query_cursor_next_match(cursor, &m)) {
            matches++;
            captures += m.capture_count;
            for (uint16_t k = 0; k < m.capture_count; k++) {
                TSNode node = m.captures[k].node;
                sum += ts_node_start_byte(node) + ts_node_end_byte(node);
            }
        }
        double t2 = now();
        TSTreeCursor walker = ts_tree_cursor_new(ts_tree_root_node(tree));
        for (int more = 1; more;) {
            sum += ts_node_symbol(ts_tree_cursor_current_node(&walker));
            if (ts_tree_cursor_goto_first_child(&walker)) continue;
            while (!ts_tree_cursor_goto_next_sibling(&walker))
                if (!ts_tree_cursor_goto_parent(&walker)) { more = 0; break; }
        }
        ts_tree_cursor_delete(&walker);
        double t3 = now();
        parse_s += t1 - t0;
        query_s += t2 - t1;
        walk_s += t3 - t2;
        ts_tree_delete(tree);
    }
    ts_query_cursor_delete(cursor);
    ts_parser_delete(parser);
    ts_query_delete(query);
    if (PyErr_Occurred()) return NULL;
    return Py_BuildValue("(dddlll)", parse_s, query_s, walk_s, matches, captures, sum);
}

static PyMethodDef methods[] = {{"run", run, METH_VARARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ctxls_query_probe", NULL, -1, methods};
PyMODINIT_FUNC PyInit_ctxls_query_probe(void) { return PyModule_Create(&module); }
"""


def build_probe(work: Path):  # type: ignore[no-untyped-def]
    """The C probe, compiled against the runtime of the installed binding's version."""
    version = importlib.metadata.version("tree-sitter")
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", f"tree-sitter=={version}", "-d", str(work)],
                   check=True)
    sdist = next(work.glob("tree_sitter-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        tar.extractall(work, filter="data")
    lib = next(work.glob("tree_sitter-*/tree_sitter/core/lib"))
    (work / "probe.c").write_text(PROBE)
    out = work / f"ctxls_query_probe{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-std=c11", "-D_DEFAULT_SOURCE",
                    f"-I{lib / 'include'}", f"-I{lib / 'src'}",
                    f"-I{sysconfig.get_paths()['include']}", str(work / "probe.c"),
                    str(lib / "src" / "lib.c"), "-o", str(out)], check=True)
    spec = importlib.util.spec_from_file_location("ctxls_query_probe", out)
    assert spec is not None and spec.loader is not None
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    print(f"probe built against tree-sitter {version}'s runtime", flush=True)
    return probe


def sources(root: Path, lang: str) -> list[bytes]:
    out = []
    for rel, path in walk(root, None):
        if languages.name_for(rel) != lang:
            continue
        raw = Path(path).read_bytes()
        if len(raw) <= 1 << 20 and b"\0" not in raw[:8192]:
            out.append(decode(raw)[0])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pairs", nargs="+", help="LANG:CORPUS")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxls-floor-") as tmp:
        probe = build_probe(Path(tmp))
        rows = []
        for pair in args.pairs:
            name, _, corpus = pair.partition(":")
            lang = languages.registry().get(name)
            spec = next((languages.spec_for(f"x{e}") for e in lang.extensions), None) \
                if lang is not None else None
            texts = sources(Path(corpus), name)
            if lang is None or spec is None or lang.scan_query is None or not texts:
                print(f"{pair}: no files, or no scan query")
                continue
            capsule = pack.get_binding(spec.grammar)
            parse, scan_q, walk_s, matches, _, _ = probe.run(
                capsule, lang.sources["scan"].encode(), texts)
            _, engine, _, _, _, _ = probe.run(capsule, b"(ERROR) @x", texts)
            parser = lang.parser()
            trees = [parser.parse(t) for t in texts]
            began = time.perf_counter()
            for tree in trees:
                ts.QueryCursor(lang.scan_query).matches(tree.root_node)
            binding = time.perf_counter() - began
            rows.append((name, Path(corpus).name, len(texts), parse, engine, scan_q, walk_s,
                         binding, matches))
            print(f"{name}: {Path(corpus).name}, {len(texts)} files: parse {parse:.3f} s; "
                  f"query engine alone {engine:.3f} s ({engine / parse:.2f}x); scan query "
                  f"{scan_q:.3f} s ({scan_q / parse:.2f}x, {matches} matches); cursor walk "
                  f"{walk_s:.3f} s ({walk_s / parse:.2f}x); the binding's matches "
                  f"{binding:.3f} s ({binding / parse:.2f}x)", flush=True)
        print("\n| language | corpus | files | parse s | query engine alone | scan query (C) "
              "| cursor walk | binding's matches |")
        print("|---|---|---|---|---|---|---|---|")
        for name, corpus, n, parse, engine, scan_q, walk_s, binding, _ in rows:
            print(f"| {name} | {corpus} | {n} | {parse:.2f} | {engine / parse:.2f}x | "
                  f"{scan_q / parse:.2f}x | {walk_s / parse:.2f}x | {binding / parse:.2f}x |")


if __name__ == "__main__":
    main()
