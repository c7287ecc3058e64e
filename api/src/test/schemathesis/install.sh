#!/usr/bin/env bash
# Installs schemathesis (the version below) into a venv under $KVORUM_TOOLS (default
# ~/.cache/kvorum-tools/schemathesis) unless it is there already, and prints the path of its
# binary. CI runs it before ./mvnw verify and hands the path to SchemathesisIT:
#
#   export KVORUM_SCHEMATHESIS=$(api/src/test/schemathesis/install.sh)
#
# Needs Python 3 and PyPI (about a minute the first time, then nothing).
set -euo pipefail

VERSION=4.32.5
TOOLS="${KVORUM_TOOLS:-$HOME/.cache/kvorum-tools}"
VENV="$TOOLS/schemathesis"
BIN="$VENV/bin/schemathesis"

if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "schemathesis, version $VERSION" ]; then
  echo "$BIN"
  exit 0
fi
if ! command -v python3 > /dev/null; then
  echo "install.sh: Python 3 is needed to install schemathesis" >&2
  exit 1
fi
echo "installing schemathesis $VERSION into $VENV" >&2
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$VERSION" >&2
echo "$BIN"
