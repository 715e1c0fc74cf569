#!/bin/sh
# SPDX-License-Identifier: MIT
# A sweep as a real Slurm job array (scenarios/sweep.sbatch, docs/sweeps.md): starts a
# one-node Slurm cluster of its own on this machine (munged on a private socket,
# slurmctld and slurmd on their own ports, every file in a temporary directory),
# submits a 4-run grid with sbatch --array, waits for it, and checks that every task
# left a result file identical (tests/h5same.py) to the same run made by
# scenarios/sweep through GNU parallel, that analysis/collect tables them, that
# `--resume` then finds nothing to redo,
# and that after a task is cancelled, `--resume` runs just that one.
# Needs root (the daemons) and Debian's slurm-wlm (slurmctld, slurmd, sbatch, munge):
# skipped, saying why, without them. .ci/run installs slurm-wlm.
set -u
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/usr/bin/python3}

for c in slurmctld slurmd sbatch squeue munged parallel; do
	if ! command -v "$c" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$c" ]; then
		echo "slurm.sh: SKIPPED: $c is missing (apt-get install slurm-wlm parallel)"
		exit 0
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "slurm.sh: SKIPPED: starting slurmctld and slurmd needs root"
	exit 0
fi
PATH=$PATH:/usr/sbin

dir=$(mktemp -d /tmp/futexsim-slurm.XXXXXX)
host=$(hostname)
port=$((20000 + $$ % 20000)) # two ports of our own, away from a real cluster's 6817/6818
failed=0
cleanup() {
	for p in slurmd slurmctld munged; do
		[ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null
	done
	sleep 1
	rm -rf "$dir"
}
trap cleanup EXIT
# A cluster that cannot be started here (no hostname resolution, a daemon refusing
# this environment) is a missing tool, not a failure of futexsim's: skipped, loudly.
cannot_start() {
	echo "slurm.sh: SKIPPED: could not start a one-node Slurm cluster here: $*"
	for l in "$dir"/log/*.log; do
		[ -f "$l" ] && { echo "--- $l"; tail -n 5 "$l"; }
	done
	exit 0
}
fail() {
	echo "slurm.sh: FAILED: $*"
	for l in "$dir"/log/*.log; do
		[ -f "$l" ] && { echo "--- $l"; tail -n 5 "$l"; }
	done
	failed=1
}

mkdir -p "$dir/state" "$dir/spool" "$dir/log"
head -c 128 /dev/urandom >"$dir/munge.key"
chmod 600 "$dir/munge.key"
munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
	--log-file="$dir/log/munged.log" --seed-file="$dir/munged.seed" || cannot_start "munged did not start"
cat >"$dir/slurm.conf" <<EOF
ClusterName=futexsim-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=$host CPUs=$(nproc) RealMemory=4096 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" || cannot_start "slurmctld or slurmd did not start"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	[ $i -le 30 ] || cannot_start "the node did not become idle in 30 s"
	sleep 1
done

# wait_array JOBID: until no task of the array is queued or running (at most 120 s)
wait_array() {
	i=0
	while [ -n "$(squeue -h -j "$1" 2>/dev/null)" ]; do
		i=$((i + 1))
		[ $i -le 120 ] || { fail "job array $1 still running after 120 s"; return 1; }
		sleep 1
	done
}

scenario=scenarios/quickstart.yaml
grid="--param kernel.private_hash.buckets=16,64 --param run.seed=1,2"
runopts="-- --set run.duration=200us --set run.warmup=50us"
# shellcheck disable=SC2086
n=$(scenarios/sweep $scenario "$dir/slurm" $grid --count)
[ "$n" = 4 ] || fail "the grid has $n runs, not 4"
# shellcheck disable=SC2086
job=$(sbatch --parsable --output="$dir/log/task-%A_%a.log" --array=1-"$n" scenarios/sweep.sbatch \
	$scenario "$dir/slurm" $grid $runopts) || fail "sbatch refused the array"
wait_array "$job"
# the same grid through GNU parallel, on this machine
# shellcheck disable=SC2086
scenarios/sweep $scenario "$dir/parallel" $grid -j 2 $runopts >"$dir/log/parallel.log" 2>&1 || fail "scenarios/sweep failed"
same=0
for f in "$dir"/parallel/h5/*.h5; do
	b=$(basename "$f")
	if [ ! -f "$dir/slurm/h5/$b" ]; then
		fail "the array left no $b"
	elif "$PYTHON" tests/h5same.py "$dir/slurm/h5/$b" "$f" >/dev/null; then
		same=$((same + 1))
	else
		fail "$b differs between the Slurm array and GNU parallel"
	fi
done
[ $same = 4 ] && echo "ok: a 4-task Slurm array left the 4 result files GNU parallel's sweep makes, bit for bit"
if "$PYTHON" analysis/collect "$dir/slurm" >"$dir/log/collect.log" 2>&1 &&
	[ "$(tail -n +2 "$dir/slurm/sweep.csv" | wc -l)" = 4 ]; then
	echo "ok: analysis/collect tables the array's 4 runs"
else
	fail "analysis/collect on the array's results: $(tail -n 2 "$dir/log/collect.log")"
fi
# shellcheck disable=SC2086
if scenarios/sweep $scenario "$dir/slurm" $grid --resume -j 1 $runopts >"$dir/log/resume.log" 2>&1 &&
	grep -q "4 of 4 runs have results" "$dir/log/resume.log"; then
	echo "ok: --resume after the array finds nothing to run"
else
	fail "--resume after the array: $(tail -n 2 "$dir/log/resume.log")"
fi

# a task cancelled (scancel) before it ran, as a preempted or killed task: the
# other keeps its result and --resume runs just the missing one. The array is
# submitted held, so the cancel cannot race the task.
# shellcheck disable=SC2086
job=$(sbatch --parsable --hold --output="$dir/log/cancel-%A_%a.log" --array=1-2 scenarios/sweep.sbatch \
	$scenario "$dir/cancel" --param run.seed=1,2 $runopts) || fail "sbatch refused the second array"
scancel "${job}_2" && scontrol release "$job" || fail "scancel or scontrol release failed"
wait_array "$job"
if [ -f "$dir/cancel/h5/0001_seed-1.h5" ] && [ ! -f "$dir/cancel/h5/0002_seed-2.h5" ]; then
	# shellcheck disable=SC2086
	if scenarios/sweep $scenario "$dir/cancel" --param run.seed=1,2 --resume -j 1 $runopts \
		>"$dir/log/cancel-resume.log" 2>&1 && [ -f "$dir/cancel/h5/0002_seed-2.h5" ] &&
		[ "$(grep -c '^ok ' "$dir/log/cancel-resume.log")" = 1 ]; then
		echo "ok: a cancelled task left no result, the other's was kept, --resume ran only the missing one"
	else
		fail "--resume after scancel: $(tail -n 3 "$dir/log/cancel-resume.log")"
	fi
else
	fail "after scancel of task 2: $(ls "$dir/cancel/h5" 2>&1)"
fi

[ $failed = 0 ] && echo "slurm.sh: all passed"
exit $failed
