#!/bin/sh
# Guide example for docs/cli.md: the planning commands of `hpfrt`, none of which needs MPI.
#   sh cli.sh path/to/hpfrt
set -eu
hpfrt=${1:-hpfrt}

# Ownership of a 1-D block-cyclic layout.
"$hpfrt" layout --n 20 --P 3 --r 2
# The communication grid and contention-free schedule of CYCLIC(2) on 15 -> CYCLIC(3) on 6.
"$hpfrt" plan --P 15 --Q 6 --r 2 --s 3 --algorithm koenig-stepwise | tail -n 3
# The same as JSON, for scripts.
"$hpfrt" plan --P 4 --Q 4 --r 3 --s 5 --json | head -c 200; echo
# A reduction tree for 8 machines, transfer cost d = 2, combination cost c = 1.
"$hpfrt" reduce-tree --n 8 --d 2 --c 1
# An all-to-many schedule of a random pattern: 8 nodes, each sending to 3 (Wang and Ranka).
"$hpfrt" all-to-many --n 8 --d 3 --algorithm rs-n | tail -n 2
# Predicted broadcast times of 64 KiB on 16 ranks, and the adaptive choice (Steffenel).
"$hpfrt" bcast --P 16 --m 65536 | tail -n 2
# Bad input: exit status 2 and a message on stderr.
if "$hpfrt" plan --P 0 --Q 4 --r 3 --s 5 2>/dev/null; then exit 1; fi
echo "guide cli: OK"
