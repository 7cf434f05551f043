#!/bin/sh
# The language servers bench/languages_vs_servers.py measures ctxls against, installed
# outside the project (never a dependency of ctxls): basedpyright in its own venv,
# typescript-language-server and intelephense with npm, gopls (and Go) and clangd from Debian. Prints the --server commands.
set -e
DIR="${SERVERS_DIR:-/tmp/ctxls-servers}"
mkdir -p "$DIR"
if [ ! -x "$DIR/venv/bin/basedpyright-langserver" ]; then
    python3 -m venv "$DIR/venv"
    "$DIR/venv/bin/pip" install -q basedpyright
fi
echo "python:     --server \"$DIR/venv/bin/basedpyright-langserver --stdio\""
if command -v npm >/dev/null 2>&1; then
    [ -f "$DIR/npm/node_modules/typescript/lib/tsserver.js" ] || \
        npm install --silent --prefix "$DIR/npm" typescript@5 typescript-language-server
    echo "typescript: --server \"$DIR/npm/node_modules/.bin/typescript-language-server --stdio\""
fi
if command -v npm >/dev/null 2>&1; then
    [ -f "$DIR/npm/node_modules/intelephense/lib/intelephense.js" ] || \
        npm install --silent --prefix "$DIR/npm" intelephense
    echo "php:        --server \"node $DIR/npm/node_modules/intelephense/lib/intelephense.js --stdio\""
fi
# gopls needs the go command to load packages, and the packages' dependencies on disk: with
# no module proxy reachable, point a copy of the corpus's go.mod at Debian's golang-*-dev
# sources (/usr/share/gocode/src) with `replace` lines, and run with GOFLAGS=-mod=mod
# GOPROXY=off GOTOOLCHAIN=local.
if ! command -v gopls >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get install -y -q golang-go gopls >/dev/null 2>&1 || echo "gopls: not installed (apt-get failed)"
fi
command -v gopls >/dev/null 2>&1 && echo "go:         --server gopls"
# clangd answers across files from its background index of compile_commands.json's files.
if ! command -v clangd >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get install -y -q clangd >/dev/null 2>&1 || echo "clangd: not installed (apt-get failed)"
fi
command -v clangd >/dev/null 2>&1 && echo "c, cpp:     --server \"clangd --background-index\""
exit 0
