// SPDX-License-Identifier: MIT
/*
 * result-merge FILE...: the result files of benchmark clients (prism_util's
 * pu_result: tx_client -o, kv bench --out), of any number of processes
 * and hosts, combined into one JSON object on stdout (pu_result_json):
 * operations, errors, throughput, latency percentiles of the merged
 * histograms, the counters summed by name, the timeline summed interval
 * by interval.  Exit status 0, 2 (usage) or 3 (a file is missing or
 * malformed: said on stderr).
 */
#include <stdio.h>

#include "prism_util.h"

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: result-merge FILE...\n");
		return 2;
	}
	return pu_result_merge_print("result-merge", argc - 1, argv + 1);
}
