#!/bin/sh
# Lists the commits since the tag given as $1, one per line.
set -eu
git log --no-merges --pretty='%h %s' "${1:?usage: collect.sh <tag>}..HEAD"
