/* SPDX-License-Identifier: MIT */
/* futexsim record: a program's futex traffic recorded as a trace (sim/record.h,
 * docs/trace.md), for workload.type: trace to replay on any machine and design. */
#include "sim/cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cliopt.h"
#include "sim/record.h"

const char usage_record[] =
	"usage: futexsim record -o TRACE [--tracer auto|strace|perf] [--no-calibrate]\n"
	"                       [--reference] [--keep-raw FILE] [--quiet] -- PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM under a tracer and writes its futex traffic to TRACE, a futexsim trace\n"
	"(docs/trace.md): per thread, every futex call (op and flags, uaddr, val, val2,\n"
	"val3, uaddr2, its duration and result: 0, EAGAIN, woken, timed out, the number\n"
	"woken or requeued), the user-space time between calls, thread creation (clone,\n"
	"with clear_child_tid) and exit, sleeps, and each call's CPU when the tracer tells\n"
	"it. Replay it with a scenario whose workload is {type: trace, trace: TRACE}.\n"
	"\n"
	"Tracers (both Debian's): strace (-f -ttt -T; any user can trace their own\n"
	"program; it stops the thread at each call, tens of microseconds a call, and\n"
	"cannot tell the CPU) and perf's syscall tracepoints with its switch events\n"
	"(timestamps taken in the kernel, a few microseconds a call, the CPU of each call,\n"
	"each thread's time off its CPU; needs root, CAP_PERFMON or\n"
	"kernel.perf_event_paranoid <= -1). auto (the default) takes perf\n"
	"when it can open the tracepoints, else strace. The measured overheads are in\n"
	"docs/trace.md.\n"
	"\n"
	"Options:\n"
	"  -o TRACE, --output TRACE  the trace written (under a temporary name first)\n"
	"  --tracer NAME     auto, strace or perf\n"
	"  --no-calibrate    skip the calibration: by default a loop of FUTEX_WAKE calls\n"
	"                    nobody waits on runs with and without the tracer first, and\n"
	"                    what the tracer adds to each gap between calls and to each\n"
	"                    call is written as the trace's overhead line, which the\n"
	"                    replay takes off (workload.tracer_overhead)\n"
	"  --reference       run PROGRAM once without the tracer first and write its run\n"
	"                    time as the trace's reference line\n"
	"  --keep-raw FILE   keep the tracer's text output (strace's or perf script's)\n"
	"  -q, --quiet       no summary on stderr\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 the trace was written (whatever PROGRAM's own status, which the\n"
	"summary says), 1 the tracer failed or recorded nothing (ptrace or perf not\n"
	"permitted), 2 bad command line or no tracer installed, 3 the tracer's output\n"
	"could not be read, 4 TRACE could not be written.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim record -o sleep.trace -- sleep 0.01\n"
	"  $ printf 'machine: e5-2650-2s\\nkernel: linux-6.17\\nworkload: {type: trace, trace: sleep.trace}\\nrun: {duration: 1s, warmup: 0}\\n' > sleep.yaml\n"
	"  $ futexsim run sleep.yaml --no-output\n";

static int missing(const char *opt)
{
	fprintf(stderr, "futexsim record: %s needs a value\n%s", opt, usage_record);
	return FS_ERR_USAGE;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .tracer = REC_AUTO, .calibrate = true };
	struct fs_error err = { 0 };
	char self[4096];
	ssize_t n;
	int i;

	if (argc == 4 && !strcmp(argv[2], "--calibration-loop")) {
		/* record's own calibration: not for people */
		char *end;
		unsigned long long calls = strtoull(argv[3], &end, 10);

		return *end || !calls ? FS_ERR_USAGE : record_futex_loop(calls);
	}
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_record, stdout);
			return FS_OK;
		}
		if (!strcmp(a, "--no-calibrate")) {
			o.calibrate = false;
		} else if (!strcmp(a, "--reference")) {
			o.reference = true;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o.quiet = true;
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			o.output = argv[++i];
		} else if (cli_is_option(a, "--output")) {
			if (!(o.output = cli_option_value(argc, argv, &i, "--output")))
				return missing("--output");
		} else if (cli_is_option(a, "--keep-raw")) {
			if (!(o.keep_raw = cli_option_value(argc, argv, &i, "--keep-raw")))
				return missing("--keep-raw");
		} else if (cli_is_option(a, "--tracer")) {
			if (!(v = cli_option_value(argc, argv, &i, "--tracer")))
				return missing("--tracer");
			if (!strcmp(v, "auto"))
				o.tracer = REC_AUTO;
			else if (!strcmp(v, "strace"))
				o.tracer = REC_STRACE;
			else if (!strcmp(v, "perf"))
				o.tracer = REC_PERF;
			else {
				fprintf(stderr, "futexsim record: --tracer: auto, strace or perf, not '%s'\n", v);
				return FS_ERR_USAGE;
			}
		} else if (a[0] == '-') {
			fprintf(stderr, "futexsim record: unknown option '%s'\n%s", a, usage_record);
			return FS_ERR_USAGE;
		} else {
			break; /* the program, without a -- before it */
		}
	}
	if (!o.output || i >= argc) {
		fprintf(stderr, "futexsim record: %s\n%s", !o.output ? "-o TRACE is required" : "no program to record",
			usage_record);
		return FS_ERR_USAGE;
	}
	o.argv = argv + i;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	o.self = n > 0 ? self : argv[0];
	if (record_run(&o, &err) < 0) {
		fprintf(stderr, "futexsim record: %s\n", err.msg);
		return err.status ? err.status : FS_ERR_RUNTIME;
	}
	return FS_OK;
}
