/* SPDX-License-Identifier: MIT */
/* Tests of sim/core/registry.c, the one lookup of named variants, on a hand-made
 * array of entries and one of pointers, and on the models' registries through
 * their own functions. */
#include <check.h>
#include <stddef.h>
#include <string.h>

#include "models/hashfn.h"
#include "models/refcount.h"
#include "models/spinlock.h"
#include "models/workload.h"
#include "sim/core/registry.h"
#include "tests/testutil.h"

struct variant {
	int id;
	const char *name; /* not the first member: the offset is used */
};

static const struct variant variants[] = { { 1, "one" }, { 2, "two" }, { 3, "three" } };
static const struct variant *const pointers[] = { &variants[2], &variants[0] };

START_TEST(entries_and_pointers)
{
	struct registry r = REGISTRY(variants, 3, struct variant, name);
	struct registry p = REGISTRY_OF_POINTERS(pointers, 2, struct variant, name);
	const char *names[4];
	const struct variant *v;

	v = registry_find(&r, "two");
	ck_assert_ptr_eq(v, &variants[1]);
	ck_assert_ptr_null(registry_find(&r, "four"));
	ck_assert_ptr_null(registry_find(&r, NULL));
	ck_assert_ptr_eq(registry_at(&r, 2), &variants[2]);
	ck_assert_ptr_null(registry_at(&r, 3));
	registry_names(&r, names);
	ck_assert_str_eq(names[0], "one");
	ck_assert_str_eq(names[2], "three");
	ck_assert_ptr_null(names[3]);
	ck_assert_ptr_eq(registry_find(&p, "one"), &variants[0]);
	ck_assert_ptr_eq(registry_at(&p, 0), &variants[2]);
	ck_assert_ptr_null(registry_at(&p, 2));
	registry_names(&p, names);
	ck_assert_str_eq(names[0], "three");
	ck_assert_str_eq(names[1], "one");
	ck_assert_ptr_null(names[2]);
}
END_TEST

START_TEST(the_models_registries)
{
	const char *names[64];
	size_t n;

	/* each name finds the entry of its place, and nothing else is found */
	hashfn_names(names);
	for (n = 0; names[n]; n++)
		ck_assert_ptr_eq(hashfn_find(names[n]), hashfn_at(n));
	ck_assert_uint_ge(n, 8);
	ck_assert_ptr_nonnull(hashfn_find("jhash2"));
	refcount_mode_names(names);
	for (n = 0; names[n]; n++)
		ck_assert_ptr_eq(refcount_mode_find(names[n]), refcount_mode_at(n));
	ck_assert_ptr_nonnull(refcount_mode_find("rcuref"));
	workload_names(names);
	for (n = 0; names[n]; n++)
		ck_assert_ptr_eq(workload_find(names[n]), workload_at(n));
	ck_assert_ptr_nonnull(workload_find("hash-bench"));
	spin_variant_names(names);
	for (n = 0; names[n]; n++)
		ck_assert_ptr_eq(spin_variant_find(names[n]), &spin_variants[n]);
	ck_assert_ptr_null(spin_variants[n].name); /* the sentinel is not an entry */
	ck_assert_ptr_nonnull(spin_variant_find("cna"));
	ck_assert_ptr_null(spin_variant_find("no-such-lock"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("registry");
	TCase *t = tcase_create("registry");

	tcase_add_test(t, entries_and_pointers);
	tcase_add_test(t, the_models_registries);
	suite_add_tcase(s, t);
	return tu_run_suite(s);
}
