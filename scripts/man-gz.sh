#!/usr/bin/env bash
# Writes a gzipped copy of each man page for the packages, as Debian policy
# and every distribution's man want them: DIR/*.1 -> OUT/*.1.gz. gzip -n
# leaves out the name and time, so that the same pages give the same bytes
# (release builds are reproducible).
#
# Usage: scripts/man-gz.sh DIR OUT   (goreleaser's before hook runs it)
set -euo pipefail
dir=${1:?usage: man-gz.sh DIR OUT} out=${2:?usage: man-gz.sh DIR OUT}
rm -rf "$out"
mkdir -p "$out"
found=""
for page in "$dir"/*.1; do
  [ -e "$page" ] || break
  gzip -9 -n -c "$page" > "$out/$(basename "$page").gz"
  found=1
done
[ -n "$found" ] || { echo "man-gz.sh: no man pages in $dir" >&2; exit 1; }
