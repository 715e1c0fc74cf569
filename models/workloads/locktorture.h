/* SPDX-License-Identifier: MIT */
/* locktorture's spin_lock writers (kernel/locking/locktorture.c, torture_type=spin_lock,
 * as of Linux 5.12; docs/sources.md: kernel-locktorture): `threads` kernel threads
 * each loop
 *
 *     if ((torture_random() & 0xfffff) == 0) schedule_timeout_uninterruptible(1);
 *     spin_lock(&torture_spinlock);
 *     WARN_ON_ONCE(lock_is_write_held); lock_is_write_held = true;
 *     WARN_ON_ONCE(lock_is_read_held);
 *     lwsp->n_lock_acquired++;
 *     torture_spin_lock_write_delay();
 *     lock_is_write_held = false;
 *     spin_unlock(&torture_spinlock);
 *     stutter_wait(); } while (!torture_must_stop());
 *
 * and torture_spin_lock_write_delay() is, with n = the writers:
 *     if (!(torture_random() % (n * 2000 * longdelay_ms)))  mdelay(longdelay_ms);  100 ms
 *     if (!(torture_random() % (n * 2 * shortdelay_us)))    udelay(shortdelay_us); 2 us
 *     if (!(torture_random() % (n * 20000)))                torture_preempt_schedule();
 * so each delay adds 0.5 us / n to an op on average, under the lock. The preemption
 * point is empty without CONFIG_PREEMPTION (not modelled [A]: a default x86 config
 * is voluntary preemption). The short delay is drawn per op as the source draws it
 * (`short_delay: random`); the long one, a 100 ms hold once in 200,000 n ops,
 * happens about once in 20 n simulated milliseconds, so a short window either
 * misses it or is swallowed by it: by default (`long_delay: mean`) every op holds
 * the lock for its mean, 0.5 us / n, which gives a long run's throughput when the
 * lock is the bottleneck (during a real mdelay every other writer waits on the
 * lock) [A]; `random` draws it as the source does. udelay/mdelay spin on the TSC:
 * their time does not stretch while the SMT sibling is busy (the op's draw is
 * divided by the machine's smt_slowdown when the sibling runs as it is drawn).
 *
 * Memory [A for the layout, D for the sizes]: torture_spinlock, and the two bools
 * lock_is_write_held/lock_is_read_held together, each on a line of its own in the
 * kernel image (node 0); the per-writer statistics (struct lock_stress_stats: two
 * longs, 16 bytes) in one kmalloc_array on node 0, so 4 writers share a line
 * (`stats_stride` 16; 64 gives each its own). The lock is the kernel design's
 * queued spinlock (`kernel.spinlock`: qspinlock or cna; the rtlock with
 * preempt_rt), taken and released by the same micro-ops as a futex bucket's lock.
 *
 * YAML (workload:): type: locktorture, threads (nwriters_stress), cpus, start_skew,
 * threads_start, create_interval; loop_work, cs_work, short_delay, long_delay,
 * jiffy, stats_stride (docs/scenario.md). One op = one pass of the loop (one
 * lock acquisition). Figures: lock_acquisitions, lock_contended, lock_wait_mean,
 * short_delays, long_delays, sleeps.
 */
#ifndef FUTEXSIM_WORKLOADS_LOCKTORTURE_H
#define FUTEXSIM_WORKLOADS_LOCKTORTURE_H

#include "models/workload.h"

extern const struct workload_type workload_locktorture;

#endif
