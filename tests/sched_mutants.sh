#!/bin/sh
# SPDX-License-Identifier: MIT
# Mutation test of the scheduler's rules (models/sched/): each rule of the fair
# class, the idle governors and the CPU selection is broken in turn (one perl
# substitution of its source line), the file is built mutated and linked into
# tests/check_sched.c, and that test must fail on every mutant: a rule whose change
# no test notices is a rule the tests do not pin. A substitution that does not
# apply, or a mutant that does not build, is an error of this script, not a kill.
# Two rules of wake_affine_idle are not mutated: with wake_affine_weight approximated
# by queue lengths (models/sched/select.h), "the previous CPU when idle" and "the
# waker's CPU on a sync wake-up with only the waker running" choose what the weight
# comparison would choose anyway (equivalent mutants).
#
# Run by make check, which sets (all required): CC, CFLAGS, HELPERS, LIBS, OUT, as
# for tests/protocol_mutants.sh.
set -eu
: "${CC:?}" "${CFLAGS:?}" "${HELPERS:?}" "${LIBS:?}" "${OUT:?}"
rm -rf "$OUT"
mkdir -p "$OUT"

# shellcheck disable=SC2086
$CC $CFLAGS -O0 -c tests/check_sched.c -o "$OUT/check_sched.o"
objs="$OUT/check_sched.o"
for h in $HELPERS; do
	o=$OUT/$(basename "$h" .c).o
	# shellcheck disable=SC2086
	$CC $CFLAGS -O0 -c "$h" -o "$o"
	objs="$objs $o"
done

# run FILE SRC NAME: the test linked with SRC built in place of FILE's object;
# returns its status (2 when the mutant does not build)
run() {
	# shellcheck disable=SC2086
	# a mutant may leave a variable unused: not an error of the mutant
	if ! $CC $CFLAGS -O0 -Wno-error -c "$2" -o "$OUT/mutant.o" 2>"$OUT/$3.build" ||
	   ! $CC $CFLAGS -o "$OUT/check" $objs "$OUT/mutant.o" $LIBS 2>>"$OUT/$3.build"; then
		return 2
	fi
	CK_FORK=no timeout 60 "$OUT/check" >"$OUT/$3.log" 2>&1
}

for f in fair idle select; do
	if ! run "$f" "models/sched/$f.c" "unmutated-$f"; then
		echo "sched_mutants: the unmutated models/sched/$f.c fails check_sched (or does not build):"
		tail -n 20 "$OUT/unmutated-$f.build" "$OUT/unmutated-$f.log" 2>/dev/null
		exit 1
	fi
done

# FILE<TAB>perl substitution<TAB>the rule it breaks
mutants='fair	s/return base \* \(1 \+ log\);/return base * (2 + log);/	the base slice scaling
fair	s/\* \(int64_t\)rq->nr <= rq->sum/* (int64_t)rq->nr < rq->sum/	eligibility is v <= V
fair	s/lag = lag \* \(int64_t\)\(rq->nr \+ 1\) \/ \(int64_t\)rq->nr;/lag = lag;/	PLACE_LAG inflates the lag by (n + 1) \/ n
fair	s/vslice \/= 2;/vslice \/= 1;/	PLACE_DEADLINE_INITIAL: half a slice
fair	s/lag = -limit;/lag = -2 * limit;/	the lag clamp
fair	s/if \(p->delay_dequeue && lag < 0\)/if (p->delay_dequeue \&\& lag < -limit)/	DELAY_ZERO
fair	s/seen = \(passed \+ p->tick - 1\) \/ p->tick \* p->tick;/seen = passed;/	a slice ends at a tick
fair	s/curr->deadline = curr->vruntime \+ \(int64_t\)p->slice;/curr->deadline += (int64_t)p->slice;/	update_deadline from v
fair	s/curr->protect = false;\n\treturn true;/return true;/	the slice end ends RUN_TO_PARITY
fair	s/curr->protect && fair_eligible\(rq, curr\)\)/curr->protect)/	RUN_TO_PARITY needs eligibility
fair	s/a->deadline < b->deadline/a->deadline > b->deadline/	the earliest deadline
fair	s/if \(ea != eb\)\n\t\treturn ea;//	eligible before not
fair	s/return e \? e : curr;/return curr ? curr : e;/	fifo runs the queue first
fair	s/if \(p->policy == FAIR_FIFO\)\n\t\treturn false;/if (p->policy == FAIR_FIFO)\n\t\treturn true;/	fifo never preempts on wake
fair	s/return now - curr->picked_at >= p->slice;/return now - curr->picked_at > p->slice;/	fifo slice end
idle	s/variance <= 400000000ull/variance <= 40000000ull/	menu: 400 us^2
idle	s/avg \* avg > 36ull \* variance/avg * avg > 3ull * variance/	menu: mean^2 > 36 variance
idle	s/divisor \* 4 <= IDLE_HISTORY \* 3/divisor * 4 <= IDLE_HISTORY * 4/	menu: retries while more than 3\/4 remain
idle	s/threshold = max - 1;/threshold = max;/	menu drops the largest
idle	s/target_residency_ps <= predicted/target_residency_ps < predicted/	the deepest fitting state
idle	s/\(remote && !st->polls \? s->ipi_ps : 0\)/(remote ? s->ipi_ps : 0)/	a polling state needs no IPI
idle	s/\(remote && !st->polls \? s->ipi_ps : 0\)/(!st->polls ? s->ipi_ps : 0)/	a local wake-up sends no IPI
idle	s/idle_for < s->halt_poll_ps \? 0/idle_for > s->halt_poll_ps ? 0/	haltpoll polls first
select	s/slave < llc_size \|\|/slave < 1 ||/	wake_wide: the wakee flips at least the LLC size
select	s/master < \(uint64_t\)slave \* llc_size/master < slave/	wake_wide: master flips the LLC size times
select	s/waker->flips >>= 1;//	the flips decay
select	s/if \(waker->last_wakee != wakee\)/if (1)/	a flip is a different wakee
select	s/\? this : prev;\n}/? prev : this;\n}/	wake_affine_weight
select	s/if \(core_idle\(m, v, cpu\)\)\n\t\t\treturn cpu;//	an idle core first
select	s/!cpu_mask_has\(r->allowed, cpu\) \|\|//	the scan keeps to the allowed CPUs
select	s/if \(!share_llc\(m, cpu, target\) \|\|/if (/	the scan keeps to the LLC
select	s/recent != target && share_llc/recent != target \&\& recent == 99 \&\& share_llc/	recent_used_cpu
select	s/if \(r->want_affine && r->waker_cpu != r->prev\)/if (r->waker_cpu != r->prev)/	no affine pull when wide'
total=0 killed=0 bad=0 n=0
tab=$(printf '\t')
while IFS="$tab" read -r file subst rule; do
	n=$((n + 1))
	total=$((total + 1))
	src=$OUT/$file-$n.c
	perl -0pe "$subst" "models/sched/$file.c" >"$src"
	if cmp -s "$src" "models/sched/$file.c"; then
		echo "sched_mutants: mutant $n ($rule) does not apply to models/sched/$file.c"
		bad=$((bad + 1))
		continue
	fi
	# the mutant is built with the file's own directory on the include path
	status=0
	run "$file" "$src" "mutant-$n" || status=$?
	case $status in
	0) echo "SURVIVED: $file: $rule ($subst)" ;;
	2) echo "sched_mutants: mutant $n ($rule) does not build:"; tail -n 5 "$OUT/mutant-$n.build"; bad=$((bad + 1)) ;;
	*) killed=$((killed + 1)) ;;
	esac
done <<EOF
$mutants
EOF
echo "sched_mutants: $killed of $total mutants killed"
[ "$bad" -eq 0 ] && [ "$killed" -eq "$total" ]
