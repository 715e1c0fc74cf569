#!/bin/sh
# SPDX-License-Identifier: MIT
# Mutation test of the coherence protocol's table (models/coherence.h, COH_PROTOCOL):
# each row is changed in turn, one field at a time (its cost class, its next state,
# its counter), models/coherence.c is built against the mutated header and linked
# into tests/check_protocol.c, and that test must fail on every mutant: a row whose
# change no test notices is a row the tests do not pin. The MOVING rows' next state
# and counter are not used (a request that finds MOVING waits, and is served in
# the state it finds then), so only their cost is mutated. Each mutation is valid
# (the table's compile-time checks pass), so a mutant that fails to build is an
# error of this script, not a kill.
#
# Run by make check, which sets (all required):
#   CC       the compiler
#   CFLAGS   every flag of a test's compile line (-O0 appended here: speed)
#   HELPERS  the sources every test links (tests/testutil.c), built once here
#   LIBS     what a test links after its objects (the library, libraries)
#   OUT      a scratch directory (emptied)
set -eu
: "${CC:?}" "${CFLAGS:?}" "${HELPERS:?}" "${LIBS:?}" "${OUT:?}"
rm -rf "$OUT"
mkdir -p "$OUT/inc/models"
header=models/coherence.h

# shellcheck disable=SC2086
$CC $CFLAGS -O0 -c tests/check_protocol.c -o "$OUT/check_protocol.o"
objs="$OUT/check_protocol.o"
for h in $HELPERS; do
	o=$OUT/$(basename "$h" .c).o
	# shellcheck disable=SC2086
	$CC $CFLAGS -O0 -c "$h" -o "$o"
	objs="$objs $o"
done

# build_and_run NAME: coherence.c against $OUT/inc's header, linked with the test;
# returns the test's status (2 when the mutant does not build)
build_and_run() {
	# shellcheck disable=SC2086
	if ! $CC -I"$OUT/inc" $CFLAGS -O0 -c models/coherence.c -o "$OUT/coherence.o" 2>"$OUT/$1.build" ||
	   ! $CC $CFLAGS -o "$OUT/check" $objs "$OUT/coherence.o" $LIBS 2>>"$OUT/$1.build"; then
		return 2
	fi
	# one process (no fork per test: faster); a mutant that loops is stopped
	CK_FORK=no timeout 120 "$OUT/check" >"$OUT/$1.log" 2>&1
}

# the table as written must pass (or every mutant would be "killed")
cp "$header" "$OUT/inc/models/coherence.h"
if ! build_and_run unmutated; then
	echo "protocol_mutants: the unmutated table fails check_protocol (or does not build):"
	cat "$OUT/unmutated.build" "$OUT/unmutated.log" 2>/dev/null | tail -n 20
	exit 1
fi

mutate_cost() {
	case $1 in
	HIT) echo FILL ;; UPGRADE) echo FILL ;; FROM_OWNER) echo FILL ;; FROM_NEAREST) echo INVALIDATE ;;
	INVALIDATE) echo FROM_NEAREST ;; FILL) echo FROM_OWNER ;; WAIT) echo HIT ;;
	*) echo "protocol_mutants: unknown cost class $1" >&2; exit 1 ;;
	esac
}
mutate_next() {
	if [ "$1" = MODIFIED_HERE ]; then echo SHARED_HERE; else echo MODIFIED_HERE; fi
}
mutate_counter() {
	case $1 in
	NONE) echo UPGRADE ;; C2C) echo PREFETCH ;; PREFETCH) echo C2C ;; INVALIDATE) echo C2C ;;
	UPGRADE) echo NONE ;; FILL) echo PREFETCH_FILL ;; PREFETCH_FILL) echo FILL ;;
	*) echo "protocol_mutants: unknown counter $1" >&2; exit 1 ;;
	esac
}

total=0 killed=0 bad=0
rows=$(grep -n '^[[:space:]]*ROW(' "$header" | tr -d ' \t\\' | sed 's/ROW(//; s/)$//')
[ -n "$rows" ] || { echo "protocol_mutants: no ROW( lines in $header"; exit 1; }
for r in $rows; do
	line=${r%%:*}
	IFS=, read -r state kind cost next counter <<EOF
${r#*:}
EOF
	for field in cost next counter; do
		if [ "$state" = MOVING ] && [ "$field" != cost ]; then continue; fi
		case $field in
		cost) new="$state, $kind, $(mutate_cost "$cost"), $next, $counter" ;;
		next) new="$state, $kind, $cost, $(mutate_next "$next"), $counter" ;;
		counter) new="$state, $kind, $cost, $next, $(mutate_counter "$counter")" ;;
		esac
		name="$state-$kind-$field"
		total=$((total + 1))
		sed "${line}s/ROW(.*)/ROW($new)/" "$header" >"$OUT/inc/models/coherence.h"
		status=0
		build_and_run "$name" || status=$?
		if [ "$status" -eq 2 ]; then
			echo "BUILD FAILED $name: ROW($new)"; sed 's/^/    /' "$OUT/$name.build" | head -n 5
			bad=$((bad + 1))
		elif [ "$status" -eq 0 ]; then
			echo "SURVIVED $name: ROW($new) passes check_protocol"
		else
			killed=$((killed + 1))
		fi
	done
done
echo "protocol_mutants: $killed of $total mutants of the table's rows fail check_protocol, $bad did not build"
[ "$killed" -eq "$total" ]
