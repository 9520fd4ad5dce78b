#!/bin/sh
# Stands in for a test tool that was not found at configure time, so the test
# that needs it fails with a message instead of silently leaving the suite.
#   missing_tool.sh <program> <debian-package> [ignored args...]
echo "missing test tool '$1' (Debian package $2): run ./setup.sh, then re-run cmake" >&2
exit 1
