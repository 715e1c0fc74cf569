/* SPDX-License-Identifier: MIT */
/* futexsim-claims: checks the claims of the seed threads in simulation and prints
 * one line per claim: holds / does not hold, with the figures (analysis/claimset.c). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analysis/claimset.h"

int main(int argc, char **argv)
{
	struct claim_options o = { NULL };
	const char *only = NULL;
	size_t n;
	const struct claim *c = claims(&n);
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--duration") && i + 1 < argc) {
			o.duration = argv[++i];
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else {
			/* --help is asked for: stdout; a usage error: stderr */
			bool asked = !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");

			fprintf(asked ? stdout : stderr, "usage: futexsim-claims [--duration D] [--only NAME]\n"
					"Checks every claim of scenarios/claims/ (here, else the installed or source tree's)\nand prints holds / does not hold.\n"
					"\n"
					"Examples:\n"
					"  $ futexsim-claims --only refcount\n"
					"  $ futexsim-claims\n");
			return asked ? 0 : 2;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct claim_result r = { 0 };
		struct fs_error e = { 0 };

		if (only && strcmp(only, c[i].name))
			continue;
		if (c[i].check(&c[i], &o, &r, &e) < 0) {
			printf("%-15s ERROR  %s\n", c[i].name, e.msg);
			failed = 1;
			continue;
		}
		printf("%-15s %-14s %s\n%15s %s\n", c[i].name, r.holds ? "holds" : "DOES NOT HOLD", c[i].statement, "",
		       r.figures);
		fflush(stdout);
	}
	return failed;
}
