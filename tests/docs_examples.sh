#!/bin/sh
# SPDX-License-Identifier: MIT
# The docs' samples (README.md, docs/*.md), checked against what the build prints, then
# every ```python example of the docs run.
#
# An output block is a fenced block opened by a bare ``` line (no info string): what a
# command prints. Every other fenced block names what it holds (```sh commands, ```yaml,
# ```python, ```text for a format, template or diagram that no command prints). The last
# non-blank line before an output block's opening fence must be one of:
#   <!-- sample: CMD -->          the block is CMD's standard output, exactly;
#   <!-- sample excerpt: CMD -->  the block's lines stand in CMD's standard output,
#                                 consecutive and in that order;
#   <!-- not checked: REASON -->  not run: REASON says why (a multi-minute run, a real
#                                 host probe, a tool that may be absent), and it is counted
#                                 and printed here;
# in either sample form a line "..." stands for any number of lines. A marker that is
# not followed by an output block, an output block with none of them, and a line of a
# ```sh block that starts with # in its first column (output shown among the commands:
# a comment goes after its command or on an indented line) each fail. So a command
# sample followed by its output is either checked or exempted by name, and a new one
# cannot slip in unmarked.
#
# CMD is one or more commands joined by &&, each starting with bin/futexsim, a tool
# bin/futexsim-NAME, or h5dump (skipped, loudly, when missing), with the shell's quoting
# and redirections; it runs in a fresh scratch directory whose bin/ holds the futexsim
# under test ($FUTEXSIM, default bin/futexsim) and its tools, and whose scenarios/,
# configs/, analysis/ and tests/ are the tree's, so a sample names files as the docs do
# and the files it writes are thrown away. Its standard error is not compared (2>&1
# compares it too). Its exit status is not checked: the output is.
#
# The ```python examples run in a scratch directory holding the files they name: a
# result file ex.h5 and a collected two-point sweep results/buckets/sweep.h5. They need
# the interpreter with h5py (PYTHON, default /usr/bin/python3) and are skipped, loudly,
# without it.
set -eu
python=${PYTHON:-/usr/bin/python3}
bin=${FUTEXSIM:-bin/futexsim}
top=$(pwd)
case "$bin" in /*) ;; *) bin=$top/$bin ;; esac

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
samples=0 excerpts=0 sample_failed=0 exempt=0 unmarked=0 skipped=0
stmp=$(mktemp -d)
trap 'rm -rf "$stmp"' EXIT
# each output block to BLOCK.kind (exact, excerpt, exempt or unmarked), .cmd (or the
# reason), .where (DOC:LINE) and .want; the rule's other breaches to $stmp/breaches
for doc in README.md docs/*.md; do
	awk -v out="$stmp/$(basename "$doc" .md)" -v doc="$doc" -v breaches="$stmp/breaches" '
		function breach(msg) { print doc ":" NR ": " msg >> breaches }
		function put(ext, text) { print text > (f ext); close(f ext) }
		!inblock && /^```/ {
			info = substr($0, 4); inblock = 1
			if (info != "") { lang = info; if (pending) breach("a marker before a ```" info " block, not an output block"); pending = 0; next }
			lang = ""; k++; f = sprintf("%s-%03d", out, k); printf "" > (f ".want")
			put(".where", doc ":" NR)
			if (pending && marker ~ /^<!-- sample: /) { kind = "exact"; what = marker; sub(/^<!-- sample: /, "", what) }
			else if (pending && marker ~ /^<!-- sample excerpt: /) { kind = "excerpt"; what = marker; sub(/^<!-- sample excerpt: /, "", what) }
			else if (pending) { kind = "exempt"; what = marker; sub(/^<!-- not checked: /, "", what) }
			else { kind = "unmarked"; what = "" }
			sub(/ -->$/, "", what)
			put(".kind", kind); put(".cmd", what)
			pending = 0; next }
		inblock && /^```/ { inblock = 0; if (lang == "") close(f ".want"); next }
		inblock && lang == "" { print > (f ".want"); next }
		inblock && lang == "sh" && /^#/ { breach("a ```sh line starting with # (output among the commands?): " $0); next }
		inblock { next }
		/^<!-- (sample|sample excerpt|not checked): .* -->$/ {
			if (pending) breach("a marker not followed by an output block: " marker)
			pending = 1; marker = $0; next }
		/^<!-- (sample|not checked)/ { breach("a malformed marker (<!-- sample: CMD -->, <!-- sample excerpt: CMD -->, <!-- not checked: REASON -->): " $0); next }
		NF && pending { breach("a marker not followed by an output block: " marker); pending = 0 }
		END { if (pending) breach("a marker not followed by an output block: " marker) }' "$doc"
done
# the scratch directory a sample runs in
scratch() {
	rm -rf "$stmp/run" && mkdir -p "$stmp/run/bin" || return 1
	for d in scenarios configs analysis tests; do ln -s "$top/$d" "$stmp/run/$d"; done
	ln -s "$bin" "$stmp/run/bin/futexsim"
	for t in "$(dirname "$bin")"/futexsim-*; do [ -e "$t" ] && ln -s "$t" "$stmp/run/bin/"; done
	return 0
}
for k in "$stmp"/*.kind; do
	[ -f "$k" ] || continue
	base=${k%.kind}
	kind=$(cat "$k") where=$(cat "$base.where") cmd=$(cat "$base.cmd")
	case $kind in
	unmarked)
		echo "docs_examples: $where: an output block without <!-- sample: CMD -->, <!-- sample excerpt: CMD --> or <!-- not checked: REASON --> before it"
		unmarked=$((unmarked + 1)); continue ;;
	exempt)
		echo "docs_examples: not checked: $where: $cmd"
		exempt=$((exempt + 1)); continue ;;
	esac
	# each command of the sample: futexsim, its tools or h5dump
	bad=$(printf '%s\n' "$cmd" | awk '{ n = split($0, c, /&&/); for (i = 1; i <= n; i++) { w = c[i]; sub(/^ +/, "", w)
		if (w !~ /^bin\/futexsim(-[a-z]+)?( |$)/ && w !~ /^h5dump /) print w } }')
	if [ -n "$bad" ]; then
		echo "docs_examples: $where: not a bin/futexsim, bin/futexsim-NAME or h5dump command: $bad"
		sample_failed=$((sample_failed + 1)); continue
	fi
	case "$cmd" in *h5dump\ *)
		if ! command -v h5dump >/dev/null 2>&1; then
			echo "docs_examples: $where: SKIPPED: no h5dump (apt-get install hdf5-tools)"
			skipped=$((skipped + 1)); continue
		fi ;;
	esac
	samples=$((samples + 1))
	[ "$kind" = excerpt ] && excerpts=$((excerpts + 1))
	scratch || { echo "docs_examples: cannot make a scratch directory in $stmp"; exit 1; }
	(cd "$stmp/run" && sh -c "$cmd") >"$base.got" 2>"$base.err" </dev/null || true
	if ! match "$([ "$kind" = excerpt ] && echo 1 || echo 0)" "$base.want" "$base.got"; then
		echo "docs_examples: $where: the sample of '$cmd' differs from its output (< the doc, > the output):"
		diff "$base.want" "$base.got" | sed 's/^/    /' | head -n 20
		if [ -s "$base.err" ]; then echo "  and it printed on stderr:"; sed 's/^/    /' "$base.err" | head -n 5; fi
		sample_failed=$((sample_failed + 1))
	fi
done
breaches=0
if [ -s "$stmp/breaches" ]; then
	sed 's/^/docs_examples: /' "$stmp/breaches"
	breaches=$(wc -l <"$stmp/breaches")
fi
echo "docs_examples: $samples output samples of the docs checked ($excerpts of them excerpts), $sample_failed differ;" \
	"$exempt not checked (each named above), $skipped skipped, $unmarked unmarked, $breaches other breaches of the rule"
sample_failed=$((sample_failed + unmarked + breaches))
if ! "$python" -c 'import h5py, numpy' 2>/dev/null; then
	echo "docs_examples: python examples SKIPPED: $python cannot import h5py and numpy (apt-get install python3-h5py)"
	exit "$((sample_failed > 0))"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$stmp"' EXIT
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
