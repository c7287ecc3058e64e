#!/usr/bin/env bash
# Builds SeaweedFS (an S3-compatible server, Apache-2.0) from the Go module proxy into
# $KVORUM_TOOLS (default ~/.cache/kvorum-tools)/seaweedfs-<version>/weed unless it is there already,
# and prints the binary's path. CI runs it before ./mvnw verify and hands the path to the backup
# tests (BackupProcessIT):
#
#   export KVORUM_WEED=$(node/src/test/seaweedfs/install.sh)
#
# The build happens in a throwaway Go module outside the repository (go install refuses SeaweedFS:
# its go.mod has replace directives). Needs Go 1.25 or newer; about 15 minutes on two cores the
# first time, then nothing.
set -euo pipefail

VERSION=v0.0.0-20261109003541-7506e5f91cd6
TOOLS="${KVORUM_TOOLS:-$HOME/.cache/kvorum-tools}"
DIR="$TOOLS/seaweedfs-$VERSION"
BIN="$DIR/weed"

if [ -x "$BIN" ]; then
  echo "$BIN"
  exit 0
fi
if ! command -v go > /dev/null; then
  echo "install.sh: Go is needed to build SeaweedFS" >&2
  exit 1
fi
echo "building SeaweedFS $VERSION into $DIR (about 15 minutes the first time)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(
  cd "$work"
  go mod init seaweedfs-build > /dev/null 2>&1
  GOFLAGS=-mod=mod go get "github.com/seaweedfs/seaweedfs/weed@$VERSION" >&2
  mkdir -p "$DIR"
  go build -o "$BIN.partial" github.com/seaweedfs/seaweedfs/weed >&2
  mv "$BIN.partial" "$BIN"
)
echo "$BIN"
