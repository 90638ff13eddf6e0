// SPDX-License-Identifier: GPL-2.0
/*
 * tx_check [-i INIT] [-t TOTAL] FILE...: load histories ("T" lines, and
 * "P" lines of transactions whose client died: hist.h) and a final-state
 * dump ("F" lines), check the dependency graph is acyclic,
 * every read saw a committed value, the final state is the last committed
 * version, and (with -t) the final values sum to TOTAL.  Exit 0 if all hold.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hist.h"

int main(int argc, char **argv)
{
	uint64_t init = 0, total = 0, sum = 0;
	int opt, have_total = 0, bad;
	struct hist_result r;
	struct hist h;

	while ((opt = getopt(argc, argv, "i:t:")) != -1) {
		if (opt == 'i') {
			init = strtoull(optarg, NULL, 0);
		} else if (opt == 't') {
			total = strtoull(optarg, NULL, 0);
			have_total = 1;
		} else {
			fprintf(stderr, "usage: tx_check [-i INIT] [-t TOTAL] FILE...\n");
			return 2;
		}
	}
	hist_init(&h);
	for (int i = optind; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");

		if (!f || hist_load(&h, f)) {
			fprintf(stderr, "tx_check: cannot load %s\n", argv[i]);
			return 2;
		}
		fclose(f);
	}
	hist_resolve_pending(&h);
	bad = hist_check(&h, init, &r);
	for (size_t i = 0; i < h.nfinal; i++)
		sum += h.final[i].val;
	if (have_total && sum != total)
		bad = 1;
	printf("txns=%zu edges=%zu cycle_txns=%zu bad_reads=%zu dup_versions=%zu"
	       " bad_final=%zu final_keys=%zu sum=%" PRIu64 " died_committed=%zu"
	       " died_aborted=%zu died_torn=%zu serializable=%s\n",
	       r.ntx, r.edges, r.in_cycle, r.bad_reads, r.dup_versions,
	       r.bad_final, h.nfinal, sum, r.pending_committed,
	       r.pending_aborted, r.pending_torn, bad ? "no" : "yes");
	if (r.first_error[0])
		printf("first_error: %s\n", r.first_error);
	hist_free(&h);
	return bad;
}
