#!/usr/bin/env bash
# The release the action installs by default: the version input's default
# in action.yml. A release pins its own version there before its tag is
# made, so that `uses: bnpl-cli/bnpl@vX.Y.Z` (and the moving @vX tag that
# follows it) installs that very release; the release workflow refuses a
# tag the action does not pin.
#
#   scripts/action-version.sh            print the pinned version
#   scripts/action-version.sh 1.4.0      pin 1.4.0 (then commit, then tag v1.4.0)
#   scripts/action-version.sh --check V  exit 1 unless V (or vV) is pinned
set -euo pipefail
cd "$(dirname "$0")/.."

pinned() {
  awk '/^  version:/ { in_version = 1; next } in_version && /^  [a-z]/ { in_version = 0 }
       in_version && /^    default:/ { sub(/^    default: */, ""); gsub(/"/, ""); print; exit }' action.yml
}

case "${1:-}" in
  "") pinned ;;
  --check)
    want=${2:?usage: action-version.sh --check VERSION}
    want=${want#v}
    got=$(pinned)
    if [ "$got" != "$want" ]; then
      echo "action.yml installs $got by default, not $want: run scripts/action-version.sh $want, commit, and tag again" >&2
      exit 1
    fi
    echo "action.yml installs $want by default" ;;
  -*) echo "usage: action-version.sh [VERSION | --check VERSION]" >&2; exit 2 ;;
  *)
    v=${1#v}
    printf '%s' "$v" | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?' || { echo "action-version.sh: $1 is not a version such as 1.4.0" >&2; exit 2; }
    current=$(pinned)
    awk -v v="$v" '/^  version:/ { in_version = 1 } in_version && /^  [a-z]/ && !/^  version:/ { in_version = 0 }
         in_version && /^    default:/ { print "    default: " v; in_version = 0; next } { print }' action.yml > action.yml.new
    mv action.yml.new action.yml
    echo "action.yml installs $v by default (was $current)" ;;
esac
