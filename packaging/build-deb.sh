#!/usr/bin/env bash
# Builds the rnic-exporter .deb from the working tree (committed and
# uncommitted files, not ignored ones) without touching the tree:
#   packaging/build-deb.sh [output-dir]      (default: build-deb/)
# Copies the sources to a temporary directory, puts packaging/debian/ at
# debian/, stamps the version from CMakeLists.txt (+ git revision), and runs
# dpkg-buildpackage -b -us -uc. Needs debhelper and the Build-Depends of
# packaging/debian/control (setup.sh installs them).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$repo/build-deb}" && cd "${1:-$repo/build-deb}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

src="$work/rnic-exporter"
mkdir -p "$src"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  # One tar reading the list (xargs would split a long list over several
  # tars, and the extracting tar stops at the first archive's end).
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard |
    tar --null --no-recursion -T - -cf -) | tar -xf - -C "$src"
else  # e.g. a container build context without .git
  tar -C "$repo" --exclude='./build*' --exclude='./.git' \
    --exclude='node_modules' -cf - . |
    tar -xf - -C "$src"
fi
cp -r "$src/packaging/debian" "$src/debian"

version=$(sed -n 's/^project([^)]*VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
rev=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
rev=${RNIC_GIT_REVISION:-$rev}
if [ -n "$(git -C "$repo" status --porcelain 2>/dev/null)" ]; then
  rev="$rev+dirty"
fi
# The copy has no .git: debian/rules hands this to CMake, so `--version` and
# rnic_build_info name the revision the package version carries.
echo "$rev" >"$src/debian/rnic-revision"
# Native package: no Debian revision, so no '-' in the version.
sed -i "1s/^rnic-exporter ([^)]*)/rnic-exporter (${version}+git${rev})/" \
  "$src/debian/changelog"

export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=2 nocheck}"
(cd "$src" && dpkg-buildpackage -b -us -uc)
find "$work" -maxdepth 1 -name '*.deb' -exec cp {} "$out/" \;
ls -1 "$out"/*.deb
