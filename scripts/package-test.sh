#!/usr/bin/env bash
# The README's getting-started from an installed package, where there is no
# Go and no clone: a container of a minimal Debian (dpkg, bash, coreutils:
# this machine's own files, since no registry is reachable; no Go), where
#   - the amd64 .deb installs with dpkg -i (its man pages gzipped, its
#     completions, LICENSE, README and examples where Debian keeps them);
#   - the README's main job from a package (bnpl checkout create --example)
#     and its carrying on with the payment id it printed (approve, capture
#     part, capture the rest, refund, get) run as written, as do the
#     getting-started guide's first steps;
#   - the packaged example request works with --input;
#   - the README's install from an archive runs as written, in a directory
#     of its own, with /usr/local/share/man/man1 missing at first: as root
#     (to /usr/local) and as a user who is not root (to ~/.local), with no
#     sudo in the container.
# The base is not debian:12 from a registry (none is reachable here, and no
# image is stored for podman): it is built from this Debian 12 machine's
# own binaries and libraries, listed below.
#
# Usage: scripts/package-test.sh [DIST]   (after goreleaser)
set -euo pipefail
cd "$(dirname "$0")/.."
dist=$(cd "${1:-dist}" && pwd)
fail() { echo "package test: $*" >&2; exit 1; }
ok() { echo "  ok  $*"; }
start=$(date +%s)

version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$dist/metadata.json")
deb=$(ls "$dist"/bnpl_*_amd64.deb | head -n 1)
archive="$dist/bnpl_${version}_linux_amd64.tar.gz"
[ -f "$deb" ] && [ -f "$archive" ] || fail "no amd64 .deb or archive in $dist"
podman() { command podman --storage-driver vfs --runtime runc "$@"; }
buildah() { command buildah --storage-driver vfs "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A minimal Debian: the tools dpkg and the guide need, with their
# libraries, from this machine, with /usr/local as Debian 12 has it
# (share/man without man1). No go, no compiler.
tools="bash sh dpkg dpkg-deb dpkg-split dpkg-query dpkg-trigger tar gzip xz find grep sed awk mawk cat ls mkdir rm cp mv ln chmod chown id head tail tr cut sort wc dirname basename env sleep date readlink stat touch install mktemp uname diff ldconfig start-stop-daemon rmdir tee"
root="$work/ctx/rootfs"
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,usr/local/bin,usr/local/share/man,etc/dpkg/dpkg.cfg.d,var/lib/dpkg/info,var/lib/dpkg/updates,var/lib/dpkg/triggers,var/log,tmp,root,pkg}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done
chmod 1777 "$root/tmp"
for t in $tools; do
  p=$(command -v "$t") || fail "this machine lacks $t"
  real=$(readlink -f "$p")
  case "$p" in */sbin/*) dest="$root/usr/sbin/$t" ;; *) dest="$root/usr/bin/$t" ;; esac
  cp "$real" "$dest"
  ldd "$real" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }' | while read -r lib; do
    target="$root$(readlink -f "$lib" | sed 's|^/lib/|/usr/lib/|; s|^/lib64/|/usr/lib64/|')"
    mkdir -p "$(dirname "$target")"
    [ -e "$target" ] || cp "$(readlink -f "$lib")" "$target"
    link="$root$(printf '%s' "$lib" | sed 's|^/lib/|/usr/lib/|; s|^/lib64/|/usr/lib64/|')"
    [ -e "$link" ] || { mkdir -p "$(dirname "$link")"; ln -s "$(readlink -f "$lib" | sed 's|^/lib/|/usr/lib/|; s|^/lib64/|/usr/lib64/|')" "$link"; }
  done
done
cp /etc/dpkg/dpkg.cfg "$root/etc/dpkg/"
: > "$root/var/lib/dpkg/status"
: > "$root/var/lib/dpkg/available"
printf 'root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000:user:/home/user:/bin/bash\n' > "$root/etc/passwd"
printf 'root:x:0:\nuser:x:1000:\n' > "$root/etc/group"
mkdir -p "$work/ctx/userhome"
printf '# the home of a user who is not root\n' > "$work/ctx/userhome/.profile"
printf 'FROM scratch\nCOPY rootfs/ /\nCOPY --chown=1000:1000 userhome/ /home/user/\nENV PATH=/usr/local/bin:/usr/bin:/usr/sbin HOME=/root\nWORKDIR /root\n' > "$work/ctx/Containerfile"
image="localhost/bnpl-package-test:$$"
buildah bud --quiet --isolation chroot -t "$image" -f "$work/ctx/Containerfile" "$work/ctx" >/dev/null
trap 'podman rmi -f "$image" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# What the container runs: the README's recipes as written, bnpl's
# <payment-id> placeholder filled with the payment the first command made.
mkdir -p "$work/in"
cp "$deb" "$archive" "$work/in/"
scripts/doc-recipe.py README.md from-package > "$work/in/main-job.sh"
scripts/doc-recipe.py README.md carry-on > "$work/in/carry-on.sh"
scripts/doc-recipe.py README.md from-archive > "$work/in/from-archive.sh"
scripts/doc-recipe.py docs/getting-started.md first-steps > "$work/in/first-steps.sh"
cat > "$work/in/test.sh" <<EOF
set -euo pipefail
cd /root
export CI=true
! command -v go >/dev/null || { echo "go is in this container"; exit 1; }
[ ! -e /usr/local/go ] || { echo "go is in this container"; exit 1; }
dpkg -i /in/$(basename "$deb") >/dev/null
bnpl version
test -f /usr/share/man/man1/bnpl.1.gz && test -f /usr/share/bash-completion/completions/bnpl
test -f /usr/share/doc/bnpl/copyright && test -f /usr/share/doc/bnpl/examples/checkout.json
echo "== the README's main job, from a package"
bash -euo pipefail /in/main-job.sh | tee /tmp/main-job.out
id=\$(sed -n 's/^Payment\t//p' /tmp/main-job.out)
echo "== carrying on with \$id"
sed "s/<payment-id>/\$id/g" /in/carry-on.sh > /tmp/carry-on.sh
bash -euo pipefail /tmp/carry-on.sh > /tmp/carry-on.out
cat /tmp/carry-on.out
bnpl payments get "\$id" -o json --jq '.status + " " + ([.captures[].amount] | join(",")) + " " + ([.refunds[].amount] | join(","))'
echo "== the guide's first steps"
head -n 1 /in/first-steps.sh > /tmp/first.sh
bash -euo pipefail /tmp/first.sh | tee /tmp/first.out
id=\$(sed -n 's/^Payment\t//p' /tmp/first.out)
tail -n +2 /in/first-steps.sh | sed "s/<payment-id>/\$id/g" > /tmp/rest.sh
bash -euo pipefail /tmp/rest.sh
echo "== the packaged example"
bnpl checkout create --input /usr/share/doc/bnpl/examples/checkout.json -o json --jq .payment.currency
dpkg -P bnpl >/dev/null
! command -v bnpl >/dev/null
echo "== the README's install from an archive"
[ ! -d /usr/local/share/man/man1 ]
mkdir -p /tmp/dl && cp /in/$(basename "$archive") /tmp/dl/ && cd /tmp/dl
. /in/from-archive.sh
hash -r
[ "\$(command -v bnpl)" = /usr/local/bin/bnpl ]
test -f /usr/local/share/man/man1/bnpl.1
bnpl version
EOF
# The same recipe as a user who is not root, with no sudo anywhere: for
# that user alone, under ~/.local.
cat > "$work/in/as-user.sh" <<EOF
set -euo pipefail
export CI=true
[ "\$(id -u)" = 1000 ] && [ ! -w /usr/local/bin ]
! command -v sudo >/dev/null
mkdir -p /tmp/dl-user && cp /in/$(basename "$archive") /tmp/dl-user/ && cd /tmp/dl-user
. /in/from-archive.sh
hash -r
[ "\$(command -v bnpl)" = "\$HOME/.local/bin/bnpl" ]
test -f "\$HOME/.local/share/man/man1/bnpl.1"
bnpl version
EOF
if ! podman run --rm --health-interval disable --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
    -v "$work/in:/in:ro" "$image" /bin/bash /in/test.sh > "$work/out" 2>&1; then
  cat "$work/out"
  fail "the getting-started from the .deb failed in a container without Go"
fi
if ! podman run --rm --health-interval disable --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --user 1000:1000 \
    -e HOME=/home/user -v "$work/in:/in:ro" "$image" /bin/bash /in/as-user.sh > "$work/user.out" 2>&1; then
  cat "$work/user.out"
  fail "the README's install from an archive failed as a user who is not root"
fi
grep -q "^bnpl $version " "$work/user.out" || fail "as a user: $(cat "$work/user.out")"
grep -q "^bnpl $version " "$work/out" || fail "bnpl version: $(cat "$work/out")"
grep -q '^CLOSED 500,750 100$' "$work/out" || { cat "$work/out"; fail "the payment did not end captured in two parts and refunded"; }
grep -q "^AED$" "$work/out" || fail "the packaged example: $(cat "$work/out")"
[ "$(grep -c "^bnpl $version " "$work/out")" = 2 ] || fail "the archive's bnpl did not run: $(cat "$work/out")"
ok "in a container without Go: dpkg -i, the README's main job (checkout create --example) and its carrying on, the guide's first steps, the packaged example; the README's install from an archive, as root and as a user, no sudo"
echo "package test passed in $(( $(date +%s) - start ))s"
