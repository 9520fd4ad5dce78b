#!/usr/bin/env python3
"""The container's build stage installs what the Debian package's
Build-Depends name, no more and no less: the image is built from the package
(packaging/build-deb.sh), so a library the package gains or drops must
follow into the Dockerfile, which no other test builds.

Usage: test_docker_build_deps.py SOURCE_ROOT"""

import re
import sys

# What the Dockerfile needs beyond Build-Depends to run dpkg-buildpackage,
# and Build-Depends entries that name a debhelper compat level.
TOOLCHAIN = {"build-essential", "dpkg-dev", "debhelper"}


def build_depends(control):
    m = re.search(r"^Build-Depends:(.*?)^\S", control, re.M | re.S)
    if not m:
        sys.exit("packaging/debian/control: no Build-Depends field")
    names = set()
    for entry in m.group(1).split(","):
        name = re.sub(r"\(.*?\)|\[.*?\]", "", entry).strip()
        if name:
            names.add(name)
    return {n for n in names if not n.startswith("debhelper-compat")}


def docker_build_packages(dockerfile):
    # The apt-get install of the first stage, up to the first "&&" after it.
    stage = dockerfile.split("\nFROM ", 2)[1]
    m = re.search(r"apt-get install -y --no-install-recommends(.*?)&&", stage, re.S)
    if not m:
        sys.exit("packaging/docker/Dockerfile: no apt-get install in the build stage")
    return set(m.group(1).replace("\\", " ").split())


def main():
    root = sys.argv[1]
    with open(f"{root}/packaging/debian/control", encoding="utf-8") as f:
        wanted = build_depends(f.read())
    with open(f"{root}/packaging/docker/Dockerfile", encoding="utf-8") as f:
        have = docker_build_packages(f.read()) - TOOLCHAIN
    if not wanted:
        sys.exit("Build-Depends parsed as empty")
    missing, extra = sorted(wanted - have), sorted(have - wanted)
    for name in missing:
        print(f"Dockerfile build stage lacks Build-Depends package {name}")
    for name in extra:
        print(f"Dockerfile build stage installs {name}, which Build-Depends does not name")
    if missing or extra:
        return 1
    print(f"{len(wanted)} build dependencies, the same in both")
    return 0


if __name__ == "__main__":
    sys.exit(main())
