#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the
# main job on the bundled default.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
"$root/build/goscribe" check "$root/samples/games/classic.sgf"
