#!/bin/sh
# What the tests need from outside PyPI, installed when missing: Debian's Chromium, which
# loads the window's HTML page headless. (Neovim comes from PyPI with the dev extra; the VS
# Code extension's npm packages are installed by its test, from its lock file.)
set -e
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "test-deps: chromium is missing: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "test-deps: installing chromium (Debian)" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
