#!/usr/bin/env bash
# Opens what `goreleaser release --snapshot --clean` (or a release) left in
# dist/ and checks it as a user would find it:
#   - checksums.txt: sha256sum -c accepts it, and it lists every archive;
#   - an archive per linux/darwin/windows x amd64/arm64 (.tar.gz; .zip for
#     windows) holding the binary, README.md, LICENSE, the completions for
#     bash, zsh, fish and PowerShell, the man pages and the example checkout
#     requests (examples/), all under no directory of its own;
#   - a CycloneDX SBOM per archive, its main component named by the
#     release's version (not a pseudo-version), every component with its
#     licence;
#   - the linux/amd64 binary's `bnpl version` names the release's version
#     and commit (never dev);
#   - .deb, .rpm and .apk packages install /usr/bin/bnpl, the completions
#     where each shell looks, the man pages gzipped, the LICENSE where each
#     family looks for it, README.md and the example requests; the .deb and
#     .rpm recommend bash-completion; the amd64 .deb installs with dpkg -i,
#     runs, and dpkg -P removes it (only when run as root and no other bnpl
#     package is installed);
#   - the Homebrew cask and the Scoop manifest name this version and the
#     archives' checksums;
#   - action.yml installs a version by default (the release it belongs to).
# Exits 1 at the first failure, saying what is wrong.
set -euo pipefail
# Under pipefail, `producer | grep -q` fails at random: grep stops at its
# first match and the producer, still writing, dies of SIGPIPE. Every
# check below greps a here-string instead.
cd "$(dirname "$0")/.."
dist=${1:-dist}

fail() { echo "release check: $*" >&2; exit 1; }
ok() { echo "  ok  $*"; }

[ -f "$dist/metadata.json" ] || fail "no $dist/metadata.json: run goreleaser release --snapshot --clean first"
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }
version=$(json "$dist/metadata.json" 'd["version"]')
commit=$(json "$dist/metadata.json" 'd["commit"]')
[ -n "$version" ] && [ "$version" != dev ] || fail "metadata.json has no version"
printf '%s' "$commit" | grep -Eqx '[0-9a-f]{40}' || fail "metadata.json names commit \"$commit\", not a commit: goreleaser could not read git (a clone without a remote needs one named, see .ci/run)"
echo "release check of bnpl $version ($commit) in $dist/"

# Checksums.
( cd "$dist" && sha256sum --quiet --strict -c checksums.txt ) || fail "sha256sum -c checksums.txt failed"
ok "sha256sum -c checksums.txt ($(wc -l < "$dist/checksums.txt") files)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for os in linux darwin windows; do
  for arch in amd64 arm64; do
    ext=tar.gz bin=bnpl
    [ $os = windows ] && ext=zip bin=bnpl.exe
    name="bnpl_${version}_${os}_${arch}.${ext}"
    [ -f "$dist/$name" ] || fail "no archive $name"
    grep -q "  $name\$" "$dist/checksums.txt" || fail "$name is not in checksums.txt"
    if [ $ext = zip ]; then
      list=$(unzip -Z1 "$dist/$name")
    else
      list=$(tar -tzf "$dist/$name")
    fi
    for want in "$bin" README.md LICENSE completions/bnpl.bash completions/bnpl.zsh \
                completions/bnpl.fish completions/bnpl.ps1 man/bnpl.1 man/bnpl-sandbox-serve.1 \
                examples/checkout.json examples/checkout-kwd.json examples/checkout-sar.json; do
      grep -qx -- "$want" <<<"$(sed 's|^\./||' <<<"$list")" || fail "$name lacks $want"
    done
    pages=$(printf '%s\n' "$list" | grep -c '^man/.*\.1$')
    [ "$pages" -ge 20 ] || fail "$name has $pages man pages"
    sbom="$dist/$name.cdx.json"
    [ -f "$sbom" ] || fail "no SBOM $sbom"
    [ "$(json "$sbom" 'd["bomFormat"]')" = CycloneDX ] || fail "$sbom is not a CycloneDX document"
    comps=$(json "$sbom" 'len(d.get("components", []))')
    [ "$comps" -ge 10 ] || fail "$sbom lists $comps components"
    grep -q 'modernc.org/sqlite' <<<"$(json "$sbom" '[c["name"] for c in d["components"]]')" || fail "$sbom does not list modernc.org/sqlite"
    [ "$(json "$sbom" 'd["metadata"]["component"]["version"]')" = "v$version" ] || fail "$sbom names the release $(json "$sbom" 'd["metadata"]["component"]["version"]'), not v$version"
    grep -q "@v$version?" <<<"$(json "$sbom" 'd["metadata"]["component"]["purl"]')" || fail "$sbom: the main component's purl does not name v$version"
    [ "$(json "$sbom" '[l["license"].get("id") for l in d["metadata"]["component"].get("licenses", [])]')" = "['Apache-2.0']" ] || fail "$sbom: the main component's licence is not Apache-2.0"
    unlicensed=$(json "$sbom" '" ".join(c["name"] for c in d["components"] if not c.get("licenses"))')
    [ -z "$unlicensed" ] || fail "$sbom names no licence for: $unlicensed"
    ok "$name: $bin, README.md, LICENSE, 4 completions, $pages man pages, 3 examples; SBOM of $comps components, each with its licence, release v$version"
  done
done

# The linux/amd64 binary says what it is.
tar -xzf "$dist/bnpl_${version}_linux_amd64.tar.gz" -C "$work"
got=$("$work/bnpl" version -o json)
[ "$(printf '%s' "$got" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')" = "$version" ] || fail "bnpl version says $got, want version $version"
[ "$(printf '%s' "$got" | python3 -c 'import json,sys; print(json.load(sys.stdin)["commit"])')" = "$commit" ] || fail "bnpl version says $got, want commit $commit"
grep -q "^bnpl $version (commit $commit" <<<"$("$work/bnpl" version)" || fail "bnpl version line: $("$work/bnpl" version)"
ok "linux/amd64 bnpl version: $("$work/bnpl" version)"

# Archives unpack into the current directory, as the README's install
# steps expect (no top directory of their own).
top=$(tar -tzf "$dist/bnpl_${version}_linux_amd64.tar.gz" | sed 's|^\./||' | cut -d/ -f1 | sort -u | tr '\n' ' ')
[ "$top" = "LICENSE README.md bnpl completions examples man " ] || fail "the linux/amd64 archive's top level is: $top"
ok "the archives unpack into the current directory: $top"

# Packages.
pkg_files="/usr/bin/bnpl /usr/share/bash-completion/completions/bnpl /usr/share/fish/vendor_completions.d/bnpl.fish /usr/share/man/man1/bnpl.1.gz /usr/share/man/man1/bnpl-sandbox-serve.1.gz /usr/share/doc/bnpl/README.md /usr/share/doc/bnpl/examples/checkout.json /usr/share/doc/bnpl/examples/checkout-kwd.json /usr/share/doc/bnpl/examples/checkout-sar.json"
# no_plain_man fails when a package holds a man page that is not gzipped.
no_plain_man() { # PACKAGE LIST
  ! grep -q '^/usr/share/man/man1/.*\.1$' <<<"$2" || fail "$1 holds man pages that are not gzipped"
}
for arch in amd64 arm64; do
  # nfpm writes a pre-release version as each format wants it (0.1.0~next for
  # deb and rpm, 0.1.0_next for apk): one package of each kind per arch.
  deb=$(ls "$dist"/bnpl_*_"$arch".deb 2>/dev/null | head -n 1 || true)
  [ -n "$deb" ] || fail "no .deb for $arch"
  list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
  for want in $pkg_files /usr/share/zsh/vendor-completions/_bnpl /usr/share/doc/bnpl/copyright; do
    grep -qx -- "$want" <<<"$list" || fail "$(basename "$deb") lacks $want"
  done
  no_plain_man "$(basename "$deb")" "$list"
  [ "$(dpkg-deb -f "$deb" Recommends)" = bash-completion ] || fail "$(basename "$deb") does not recommend bash-completion: $(dpkg-deb -f "$deb" Recommends)"
  ok "$(basename "$deb"): /usr/bin/bnpl, bash, zsh, fish completions, man pages gzipped, copyright, README, examples; recommends bash-completion"

  rpmarch=x86_64; [ $arch = arm64 ] && rpmarch=aarch64
  rpm=$(ls "$dist"/bnpl-*."$rpmarch".rpm 2>/dev/null | head -n 1 || true)
  [ -n "$rpm" ] || fail "no .rpm for $rpmarch"
  if command -v rpm >/dev/null 2>&1; then
    list=$(rpm -qlp "$rpm" 2>/dev/null)
    for want in $pkg_files /usr/share/zsh/site-functions/_bnpl /usr/share/licenses/bnpl/LICENSE; do
      grep -qx -- "$want" <<<"$list" || fail "$(basename "$rpm") lacks $want"
    done
    no_plain_man "$(basename "$rpm")" "$list"
    grep -qx /usr/share/licenses/bnpl/LICENSE <<<"$(rpm -qp --licensefiles "$rpm" 2>/dev/null)" || fail "$(basename "$rpm") does not mark its LICENSE as the licence"
    grep -qx bash-completion <<<"$(rpm -qp --recommends "$rpm" 2>/dev/null)" || fail "$(basename "$rpm") does not recommend bash-completion"
    ok "$(basename "$rpm"): /usr/bin/bnpl, bash, zsh, fish completions, man pages gzipped, LICENSE (%license), README, examples; recommends bash-completion"
  else
    fail "rpm is not installed: cannot open $(basename "$rpm")"
  fi

  apkarch=x86_64; [ $arch = arm64 ] && apkarch=aarch64
  apk=$(ls "$dist"/bnpl_*_"$apkarch".apk 2>/dev/null | head -n 1 || true)
  [ -n "$apk" ] || fail "no .apk for $apkarch"
  list=$(tar -tzf "$apk" 2>/dev/null | sed 's|^|/|')
  for want in $pkg_files /usr/share/zsh/site-functions/_bnpl /usr/share/licenses/bnpl/LICENSE; do
    grep -qx -- "$want" <<<"$list" || fail "$(basename "$apk") lacks $want"
  done
  no_plain_man "$(basename "$apk")" "$list"
  ok "$(basename "$apk"): /usr/bin/bnpl, bash, zsh, fish completions, man pages gzipped, LICENSE, README, examples"
done

# Install the amd64 .deb, run it, remove it.
if [ "$(id -u)" = 0 ] && command -v dpkg >/dev/null 2>&1 && [ "$(dpkg --print-architecture)" = amd64 ]; then
  if dpkg -s bnpl >/dev/null 2>&1; then
    fail "a bnpl package is installed already: remove it (dpkg -P bnpl) to check the .deb"
  fi
  dpkg -i "$(ls "$dist"/bnpl_*_amd64.deb | head -n 1)" >/dev/null
  grep -q "^bnpl $version (commit $commit" <<<"$(/usr/bin/bnpl version)" || { dpkg -P bnpl >/dev/null; fail "installed bnpl version: $(/usr/bin/bnpl version)"; }
  [ -f /usr/share/bash-completion/completions/bnpl ] && [ -f /usr/share/man/man1/bnpl.1.gz ] || { dpkg -P bnpl >/dev/null; fail "the .deb did not install its completions and man pages"; }
  dpkg -P bnpl >/dev/null
  [ ! -e /usr/bin/bnpl ] || fail "dpkg -P bnpl left /usr/bin/bnpl"
  [ ! -e /usr/share/man/man1/bnpl.1.gz ] || fail "dpkg -P bnpl left its man pages"
  ok "dpkg -i: /usr/bin/bnpl version names $version; dpkg -P removes it"
else
  echo "  --  dpkg -i skipped: needs root on a Debian amd64 machine"
fi

# Homebrew cask and Scoop manifest, generated, not published.
cask="$dist/homebrew/Casks/bnpl.rb"
[ -f "$cask" ] || fail "no Homebrew cask at $cask"
grep -q "version \"$version\"" "$cask" || fail "$cask does not name version $version"
for a in darwin_amd64 darwin_arm64 linux_amd64 linux_arm64; do
  sum=$(grep "  bnpl_${version}_${a}.tar.gz\$" "$dist/checksums.txt" | cut -d' ' -f1)
  grep -q "$sum" "$cask" || fail "$cask lacks the checksum of the $a archive"
done
ok "Homebrew cask $cask: version and checksums"
scoop="$dist/scoop/bnpl.json"
[ -f "$scoop" ] || fail "no Scoop manifest at $scoop"
[ "$(json "$scoop" 'd["version"]')" = "$version" ] || fail "$scoop does not name version $version"
for a in amd64:64bit arm64:arm64; do
  sum=$(grep "  bnpl_${version}_windows_${a%%:*}.zip\$" "$dist/checksums.txt" | cut -d' ' -f1)
  [ "$(json "$scoop" "d['architecture']['${a#*:}']['hash']")" = "$sum" ] || fail "$scoop: the ${a#*:} hash is not the archive's"
done
ok "Scoop manifest $scoop: version and checksums"

# The action installs the release it belongs to by default.
pinned=$(scripts/action-version.sh)
printf '%s' "$pinned" | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' || fail "action.yml's version input defaults to \"$pinned\", not a release such as 1.4.0"
ok "action.yml installs $pinned by default (a release tag must match it: scripts/action-version.sh --check)"
echo "release check passed"
