#!/usr/bin/env bash
# The CycloneDX SBOM of one release archive (goreleaser's sboms step runs it
# in dist/, with GOOS, GOARCH and CGO_ENABLED set as for the archive's
# build): cyclonedx-gomod's document of the modules built in, with each
# module's licence asserted (not only reported as evidence), and the main
# component named by the release's version rather than the pseudo-version
# git gives a build that is not on a tag.
#
# Usage: scripts/sbom.sh VERSION OUTPUT [MODULE_DIR]   (MODULE_DIR default ..)
set -euo pipefail
version=${1:?usage: sbom.sh VERSION OUTPUT [MODULE_DIR]} output=${2:?usage: sbom.sh VERSION OUTPUT [MODULE_DIR]}
module=${3:-..}
# The generator reads the main module's version with a git library that
# cannot open a linked worktree (where .git is a file): it then reads a
# copy of the module's files in a repository of their own. The version it
# finds is replaced below either way.
if [ -f "$module/.git" ]; then
  copy=$(mktemp -d)
  trap 'rm -rf "$copy"' EXIT
  ( cd "$module" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - ) | tar -xf - -C "$copy"
  git -C "$copy" init -q
  git -C "$copy" add -A
  git -C "$copy" -c user.name=sbom -c user.email=sbom@localhost commit -q -m "module copy for the SBOM"
  module=$copy
fi
cyclonedx-gomod app -json -licenses -assert-licenses -output "$output.tmp" -main . "$module"
python3 - "$output.tmp" "$output" "$version" <<'PY'
import json, re, sys
src, dst, version = sys.argv[1], sys.argv[2], "v" + sys.argv[3].lstrip("v")
doc = json.load(open(src))
main = doc["metadata"]["component"]
old = main.get("version", "")
main["version"] = version
def revise(ref):
    # The purl and bom-ref carry the version after "@".
    return re.sub(r"@[^?#]*", "@" + version, ref, count=1) if isinstance(ref, str) else ref
for key in ("purl", "bom-ref"):
    if key in main:
        main[key] = revise(main[key])
if old:
    for dep in doc.get("dependencies", []):
        if ("@" + old) in dep.get("ref", ""):
            dep["ref"] = dep["ref"].replace("@" + old, "@" + version, 1)
json.dump(doc, open(dst, "w"), indent=2)
PY
rm -f "$output.tmp"
