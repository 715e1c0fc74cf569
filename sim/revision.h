/* SPDX-License-Identifier: MIT */
/* The revision futexsim was built from: `git describe --always --dirty --abbrev=12`
 * (e.g. "49bf8f6a1b2c-dirty" when the working tree differed from HEAD), "unknown"
 * when built outside git. Defined in the generated $(BUILD)/gen/revision.c, which the
 * Makefile rewrites only when the revision changes (a commit or an edit). */
#ifndef FUTEXSIM_REVISION_H
#define FUTEXSIM_REVISION_H

extern const char futexsim_git_rev[];

#endif
