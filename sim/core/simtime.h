/* SPDX-License-Identifier: MIT */
/* Simulated time: integer picoseconds since the start of the run.
 * 2^64 ps is about 213 days of simulated time; runs are refused long before that
 * (see sim/scenario.c), so sums of times never wrap. */
#ifndef FUTEXSIM_SIMTIME_H
#define FUTEXSIM_SIMTIME_H

#include <stdint.h>

typedef uint64_t simtime_t;
#define SIMTIME_MAX UINT64_MAX

/* cost scaled by a factor given in thousandths (e.g. the SMT slowdown), rounded to nearest.
 * On the hot path: in 64 bits (a division by a constant) whenever the product fits,
 * which every cost of a run does (t < 2^44 ps = 17 s, factors < 2^20 thousandths);
 * the 128-bit division, a library call, only beyond. */
static inline simtime_t simtime_scale_milli(simtime_t t, uint64_t milli)
{
	if ((t >> 44) == 0 && (milli >> 20) == 0)
		return (t * milli + 500u) / 1000u;
	return (simtime_t)(((unsigned __int128)t * milli + 500u) / 1000u);
}

#endif
