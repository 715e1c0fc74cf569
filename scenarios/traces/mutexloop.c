/* SPDX-License-Identifier: MIT */
/* A futex-heavy pthread program to record (docs/trace.md): THREADS threads each
 * take one shared pthread mutex ITERS times, with a little work inside and outside
 * it, then main joins them. Contended, so glibc's lowlevellock makes FUTEX_WAIT
 * (some EAGAIN) and FUTEX_WAKE calls; the joins are FUTEX_WAITs on the threads'
 * TID words, woken by the kernel at their exits.
 *
 *   cc -O2 -pthread mutexloop.c -o mutexloop && ./mutexloop [THREADS] [ITERS] [INSIDE] [OUTSIDE]
 *
 * INSIDE and OUTSIDE are loop counts of busy work (volatile increments) under and
 * between the locks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter, iters, inside, outside;

static void spin(long n)
{
	for (volatile long k = 0; k < n; k++)
		;
}

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		spin(inside);
		pthread_mutex_unlock(&lock);
		spin(outside);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	iters = argc > 2 ? atol(argv[2]) : 100000;
	inside = argc > 3 ? atol(argv[3]) : 50;
	outside = argc > 4 ? atol(argv[4]) : 200;
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", counter);
	return counter == n * iters ? 0 : 1;
}
