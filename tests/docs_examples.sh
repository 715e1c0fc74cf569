#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every ```python example of the docs (docs/*.md, README.md) in a scratch directory
# holding the files the examples name: a result file ex.h5 and a collected two-point sweep
# results/buckets/sweep.h5. An example that no longer works with the current formats
# fails make check. Skips loudly when
# the interpreter with h5py (PYTHON, default /usr/bin/python3) is missing.
#
# Then every output sample of the docs marked `<!-- sample: COMMAND -->` (the fenced
# block after it is COMMAND's standard output, exactly; a line "..." in it stands for
# any number of lines) or `<!-- sample excerpt: COMMAND -->` (its lines appear in
# the output in that order, "..." as before): COMMAND (bin/futexsim ...) is run and a
# sample that differs fails, so a change that moves a printed figure fails make check
# until the doc is updated. These run without python.
set -eu
python=${PYTHON:-/usr/bin/python3}
bin=${FUTEXSIM:-bin/futexsim}

# match EXCERPT EXPECTED OUTPUT: 0 when OUTPUT has EXPECTED's lines ("..." any lines)
match() {
	awk -v excerpt="$1" '
		FNR == NR { want[++nw] = $0; next }
		{ got[++ng] = $0 }
		function m(i, j,   k) { # want[i..] against got[j..]
			if (i > nw) return excerpt || j > ng
			if (want[i] ~ /^ *\.\.\. *$/) {
				for (k = j; k <= ng + 1; k++) if (m(i + 1, k)) return 1
				return 0
			}
			return j <= ng && want[i] == got[j] && m(i + 1, j + 1)
		}
		END {
			if (excerpt) { for (j = 1; j <= ng; j++) if (m(1, j)) exit 0; exit 1 }
			exit m(1, 1) ? 0 : 1
		}' "$2" "$3"
}
samples=0 sample_failed=0
stmp=$(mktemp -d)
for doc in docs/*.md README.md; do
	awk -v out="$stmp/$(basename "$doc" .md)" '
		/^<!-- sample( excerpt)?: .* -->$/ {
			k++; cmd = $0; sub(/^<!-- sample( excerpt)?: /, "", cmd); sub(/ -->$/, "", cmd)
			print cmd > (out "-" k ".cmd"); close(out "-" k ".cmd")
			print (($0 ~ /^<!-- sample excerpt:/) ? 1 : 0) > (out "-" k ".excerpt"); close(out "-" k ".excerpt")
			want = 1; next }
		want && /^```/ && !inblock { inblock = 1; next }
		inblock && /^```/ { inblock = 0; want = 0; close(out "-" k ".want"); next }
		inblock { print > (out "-" k ".want") }' "$doc"
done
for c in "$stmp"/*.cmd; do
	[ -f "$c" ] || continue
	base=${c%.cmd}
	samples=$((samples + 1))
	cmd=$(cat "$c")
	case "$cmd" in
	bin/futexsim\ *) ;;
	*) echo "docs_examples: sample $(basename "$base"): not a bin/futexsim command: $cmd"; sample_failed=$((sample_failed + 1)); continue ;;
	esac
	# the command's words after bin/futexsim, as the doc shows them (no quoting in samples)
	# shellcheck disable=SC2086
	"$bin" ${cmd#bin/futexsim } >"$base.got" 2>/dev/null || true
	touch "$base.want"
	if ! match "$(cat "$base.excerpt")" "$base.want" "$base.got"; then
		echo "docs_examples: the sample of '$cmd' ($(basename "$base")) differs from its output:"
		diff "$base.want" "$base.got" | sed 's/^/    /' | head -n 20
		sample_failed=$((sample_failed + 1))
	fi
done
rm -rf "$stmp"
echo "docs_examples: $samples output samples of the docs checked, $sample_failed differ"
if ! "$python" -c 'import h5py, numpy' 2>/dev/null; then
	echo "docs_examples: python examples SKIPPED: $python cannot import h5py and numpy (apt-get install python3-h5py)"
	exit "$((sample_failed > 0))"
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
[ "$failed" -eq 0 ] && [ "$sample_failed" -eq 0 ]
