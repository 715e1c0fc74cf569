#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every ```python example of the docs (docs/*.md, README.md) in a scratch directory
# holding the files the examples name: a result file ex.h5 and a collected two-point sweep
# results/buckets/sweep.h5. An example that no longer works with the current formats
# fails make check. Skips loudly when
# the interpreter with h5py (PYTHON, default /usr/bin/python3) is missing.
set -eu
python=${PYTHON:-/usr/bin/python3}
bin=${FUTEXSIM:-bin/futexsim}
if ! "$python" -c 'import h5py, numpy' 2>/dev/null; then
	echo "docs_examples: SKIPPED: $python cannot import h5py and numpy (apt-get install python3-h5py)"
	exit 0
fi
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" run scenarios/quickstart.yaml --set run.duration=200us --set run.warmup=50us -o "$tmp/ex.h5" >/dev/null 2>&1
# the sweep examples read results/buckets/sweep.h5: a two-point sweep, collected
mkdir -p "$tmp/results/buckets"
for b in 2 16; do
	"$bin" run scenarios/quickstart.yaml --set run.duration=100us --set run.warmup=20us \
		--set kernel.private_hash.buckets=$b -o "$tmp/results/buckets/b$b.h5" >/dev/null 2>&1
done
"$python" analysis/collect "$tmp/results/buckets" >/dev/null
n=0 failed=0
for doc in docs/*.md README.md; do
	# each python block to its own file: ex-DOC-N.py
	awk -v out="$tmp/ex-$(basename "$doc" .md)" '
		/^```python/ { k++; f = out "-" k ".py"; inblock = 1; next }
		/^```/ && inblock { inblock = 0; close(f); next }
		inblock { print > f }' "$doc"
done
for ex in "$tmp"/ex-*.py; do
	[ -f "$ex" ] || continue
	n=$((n + 1))
	if (cd "$tmp" && "$python" "$ex" >"$ex.out" 2>&1); then
		:
	else
		echo "docs_examples: $(basename "$ex" .py) failed:"; sed 's/^/    /' "$ex.out" | tail -n 5
		failed=$((failed + 1))
	fi
done
cd "$top"
echo "docs_examples: $n python examples of the docs run, $failed failed"
[ "$failed" -eq 0 ]
