// SPDX-License-Identifier: MIT
/*
 * rs_check: offline tools for PRISM-RS runs.
 *
 *   rs_check hist FILE...	merge the histories written by rs_client
 *				--hist and check linearizability per block.
 *				Exit 0: linearizable, 1: violation, 2: the
 *				search gave up or bad input.
 *   rs_check lat FILE...	merge --lat files; print one JSON object:
 *				ops, ops_per_s, mean_us, p99_us, and the same
 *				for gets and puts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lincheck.h"
#include "rs.h"

struct lat_set {
	double	*v;
	size_t	n, cap;
	double	sum;
};

static int lat_add(struct lat_set *s, double x)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 4096;
		double *nv = realloc(s->v, nc * sizeof(double));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n++] = x;
	s->sum += x;
	return 0;
}

/* The fields of one set, their names prefixed with name. */
static void lat_print(struct pu_json *j, const char *name, struct lat_set *s,
		      double secs)
{
	double p99 = 0, mean = 0;

	if (s->n) {
		qsort(s->v, s->n, sizeof(double), pu_cmp_double);
		/*
		 * The sample of rank round((n - 1) * 0.99), not pu_pct_sorted()'s
		 * nearest rank: rs.sh's numbers stay what they were.
		 */
		p99 = s->v[(size_t)((double)(s->n - 1) * 0.99 + 0.5)];
		mean = s->sum / (double)s->n;
	}
	j->prefix = name;
	pu_json_u64(j, "ops", s->n);
	pu_json_double(j, "ops_per_s", 1, secs > 0 ? (double)s->n / secs : 0.0);
	pu_json_double(j, "mean_us", 1, mean);
	pu_json_double(j, "p99_us", 1, p99);
}

static int cmd_lat(int argc, char **argv)
{
	struct lat_set all = { 0 }, gets = { 0 }, puts = { 0 };
	long long elapsed_us = 0, e;
	struct pu_json j;
	char line[128], k;
	double x;
	int a;

	for (a = 0; a < argc; a++) {
		FILE *f = fopen(argv[a], "r");

		if (!f) {
			perror(argv[a]);
			return 2;
		}
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "elapsed_us %lld", &e) == 1) {
				if (e > elapsed_us)
					elapsed_us = e;
			} else if (sscanf(line, "%c %lf", &k, &x) == 2) {
				if (lat_add(&all, x) ||
				    lat_add(k == 'p' ? &puts : &gets, x)) {
					fclose(f);
					return 2;
				}
			}
		}
		fclose(f);
	}
	pu_json_begin(&j, stdout);
	lat_print(&j, "", &all, elapsed_us / 1e6);
	lat_print(&j, "get_", &gets, elapsed_us / 1e6);
	lat_print(&j, "put_", &puts, elapsed_us / 1e6);
	pu_json_end(&j);
	free(all.v);
	free(gets.v);
	free(puts.v);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "hist"))
		switch (lc_check_files(argv + 2, argc - 2, LC_VALUE_CORRUPT, "",
				       stdout)) {
		case LC_OK:
			return 0;
		case LC_VIOLATION:
			return 1;
		default:
			return 2;
		}
	if (argc >= 3 && !strcmp(argv[1], "lat"))
		return cmd_lat(argc - 2, argv + 2);
	fprintf(stderr, "usage: %s hist FILE... | lat FILE...\n", argv[0]);
	return 2;
}
