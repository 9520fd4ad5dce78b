#!/usr/bin/env bash
# Make sure the cached kernel and the initramfs are present and current.
# Used as the ctest fixture (vm_prepare) and by run-case.sh; cheap when
# nothing changed. Environment: see fetch-kernel.sh and build-initramfs.sh.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
mkdir -p "$RNIC_VM_BUILD"
# One preparer per build dir at a time (ctest -j, parallel manual runs).
exec 8>"$RNIC_VM_BUILD/.prepare.lock"
flock 8
"$VM_DIR/fetch-kernel.sh"
"$VM_DIR/build-initramfs.sh"
