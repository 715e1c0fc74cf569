/* SPDX-License-Identifier: MIT */
/* futexsim probe: the command line of sim/probe/. */
#include "sim/cmd/cmd.h"

#include <stdio.h>
#include <string.h>

#include "sim/core/error.h"
#include "sim/probe/probe.h"

const char usage_probe[] =
	"usage: futexsim probe -o FILE.yaml [--seconds N] [--name NAME]\n"
	"       futexsim probe --check [--machine FILE.yaml] [--kernel PRESET] [--name NAME]\n"
	"                              [--seconds N] [-o TABLE.csv] [--no-anchor] [--no-blocking]\n"
	"       futexsim probe --topology [--root DIR]\n"
	"\n"
	"Models the machine it runs on. Reads the topology from sysfs (online CPUs, their\n"
	"cores and SMT siblings, NUMA nodes and distances, last-level caches, clock, CPU\n"
	"model, kernel release), then measures with micro-benchmarks pinned to chosen CPUs\n"
	"(sched_setaffinity): the syscall entry and exit (a loop of getppid), L1 and atomic\n"
	"hits, one-way line hand-offs by CAS ping-pong between SMT siblings, cores of a node\n"
	"and of other nodes, DRAM latency by node (a pointer chase over a random cycle larger\n"
	"than the last-level cache), the SMT slowdown (a loop with its sibling idle and\n"
	"busy), and sleeping and waking for the sched: block: the idle states from sysfs,\n"
	"futex ping-pongs on one CPU (the context switch) and across two (the wakee spinning,\n"
	"sleeping on an idle CPU, sleeping on a CPU /dev/cpu_dma_latency keeps polling: the\n"
	"IPI and the wake-up apart; the waker's FUTEX_WAKE alone: the IPI's send), a thread's\n"
	"exit after 0.1 s asleep (perf's wake suites' workers) and a pipe ping-pong. Writes a\n"
	"machine file (docs/machine.md) whose every constant says how it was\n"
	"measured: median and spread over the trials, date, CPU model and kernel; what cannot\n"
	"be measured is labelled [A] or [D] with the reason. The file is checked by loading\n"
	"it as the simulator does and appears only when complete. Prints the kernel preset\n"
	"nearest to the running kernel and the mitigations it reports.\n"
	"\n"
	"A topology the machine schema cannot express (unequal cores per node, a CPU\n"
	"numbering neither cores-first nor smt-adjacent, ...) is refused: nothing written.\n"
	"\n"
	"Options:\n"
	"  -o FILE.yaml, --output FILE.yaml\n"
	"                   the machine file to write (replaced if it exists; - for standard\n"
	"                   output); its name is FILE unless --name is given\n"
	"  --seconds N      measuring budget (default 20); trials scale with it, at least 5\n"
	"                   per value, so a small budget may take somewhat longer\n"
	"  --name NAME      the machine's name in the file\n"
	"  --topology       only read and print the topology, kernel preset and mitigations\n"
	"  --root DIR       with --topology: read DIR/sys and DIR/proc instead of /sys, /proc\n"
	"  -h, --help       show this help\n"
	"\n"
	"Progress goes to standard error, a line per value. Exit status: 0 written, 1 a\n"
	"benchmark failed (e.g. sched_setaffinity not permitted), 2 bad command line, 3 the\n"
	"topology cannot be read or expressed, 4 the file cannot be written.\n"
	"Use the file: futexsim run SCENARIO.yaml --set machine=FILE.yaml\n"
	"\n"
	"--check: runs perf's futex hash loop for real on this machine (1 thread, 1 per core,\n"
	"all CPUs; private and shared; private hashes of 2, 16, 128 slots and the global hash\n"
	"where the kernel has PR_FUTEX_HASH; and perf bench futex hash itself when perf is\n"
	"installed), simulates the same scenarios on the probed machine file (--machine, else\n"
	"it probes into results/host-machine.yaml first) with the kernel preset nearest to this\n"
	"kernel (--kernel), and prints real vs simulated with the error of each and their\n"
	"median; -o writes the table as CSV (default results/host-check.csv). Then, anchored:\n"
	"the machine file fitted (futexsim fit) to the real figures of the scenarios without -b\n"
	"(TABLE-stock-rows.yaml, MACHINE-anchored.yaml) and every scenario simulated again on it,\n"
	"the -b rows as predictions (TABLE-anchored.csv); --no-anchor skips that. The blocking\n"
	"rows follow in the same table and CSV (about 25 s more; --no-blocking leaves them out):\n"
	"perf bench futex wake, wake-parallel, requeue and lock-pi run by perf where it has\n"
	"them, and futexsim's own copy of schbench -L's message/worker loop, each beside the\n"
	"same workload simulated, with their median and max |error|. docs/probe.md.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim probe --topology\n"
	"  $ futexsim probe -o myhost.yaml\n"
	"  $ futexsim run quickstart --set machine=myhost.yaml --set workload.threads=1 --no-output\n";

int cmd_probe(int argc, char **argv)
{
	struct fs_error err = { 0 };
	int status;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_probe, stdout);
			return FS_OK;
		}
	}
	status = probe_command(argc, argv, &err);
	if (status)
		fprintf(stderr, "%s%s\n", strncmp(err.msg, "futexsim", 8) ? "futexsim probe: " : "", err.msg);
	return status;
}
