// SPDX-License-Identifier: MIT
/*
 * rs_client: workload driver for PRISM-RS (tests and benchmarks).
 *
 * Runs a closed loop of GET/PUT on random blocks (uniform or Zipf) and
 * optionally records
 *   --hist FILE	every operation for the linearizability checker:
 *			"W|R key value_id call_ns ret_ns client" (ret "inf"
 *			for a PUT whose outcome is unknown; failed GETs are
 *			left out: they returned nothing);
 *   --lat FILE		"elapsed_us N" then one "g|p latency_us" line per
 *			successful operation.
 * --ready FILE is written once the client is set up (its Zipf table built:
 * seconds for millions of blocks in the guest), before it waits for
 * --start FILE, so that a driver starts every client's run at once.
 * --progress FILE is written after --progress-after successful ops; with
 * --resume FILE the client then waits (bounded) until that file exists.
 * Times are CLOCK_MONOTONIC, shared by all netns of one kernel, so
 * histories of clients in different namespaces merge.  Every 100 ms the
 * info files are read again: a replica that restarted (rs_replica
 * --rejoin) is used from then on ("reloads=" counts them).
 *
 *   rs_client --if IF --info F1,F2,F3 --id CID [--mode abd|lock]
 *	[--keys K] [--zipf THETA] [--writes PCT] [--ops N | --duration MS]
 *	[--hist FILE] [--lat FILE] [--ready FILE] [--start FILE] [--progress FILE]
 *	[--progress-after N] [--resume FILE] [--broken nowb|one|die-locked] [--seed S]
 *	[--chain-timeout MS] [--op-timeout MS] [--lease MS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lincheck.h"
#include "rs.h"

/*
 * The replicas' info files and the lines last read from them; a line that
 * changed names a restarted replica.
 */
struct infos {
	unsigned int	n;
	char		*path[RS_MAX_REPLICAS];
	char		line[RS_MAX_REPLICAS][512];
};

/* Switch c to the replicas whose info line changed; how many did. */
static unsigned int reload_infos(struct rs_client *c, struct infos *in)
{
	unsigned int r, changed = 0;
	struct rs_info ri;
	char line[512];

	for (r = 0; r < in->n; r++) {
		if (pu_read_first_line(in->path[r], line, sizeof(line)) ||
		    !strcmp(line, in->line[r]) || rs_info_parse(line, &ri) ||
		    rs_client_set_replica(c, r, &ri))
			continue;
		strcpy(in->line[r], line);
		changed++;
	}
	return changed;
}

int main(int argc, char **argv)
{
	const char *hist_path = NULL, *lat_path = NULL, *start = NULL, *ready = NULL;
	const char *progress = NULL, *infos = NULL, *resume = NULL;
	unsigned long long nops = 0, duration_ms = 0, progress_after = 50;
	unsigned int keys = 16, writes = 50, seq = 0;
	unsigned char *val, *got;
	unsigned long long done = 0, failed = 0, reloads = 0;
	static struct infos in;
	uint64_t next_reload;
	struct rs_config cfg;
	struct rs_client *c;
	const struct rs_stats *st;
	struct pu_zipf zipf;
	double theta = 0;
	FILE *hist = NULL, *lat = NULL;
	uint64_t t0, t_end, elapsed;
	char *list, *tok, *save;
	uint64_t rng;
	int mode = RS_MODE_ABD, err;
	_Static_assert(RS_MODE_ABD == 0 && RS_MODE_LOCK == 1, "--mode: choice i is mode i");
	_Static_assert(RS_BROKEN_NO_WRITEBACK == 1 && RS_BROKEN_ONE_REPLY == 2 &&
		       RS_BROKEN_DIE_LOCKED == 4, "--broken: choice i is bit i");
	const struct pu_opt opts[] = {
		PU_OPT("if", cfg.ifname, "IF", "interface (required)"),
		PU_OPT("info", infos, "F1,F2,..", "the replicas' info files (required)"),
		PU_OPT("id", cfg.client_id, "CID", "client id, 1 to 65535, unique (required)"),
		PU_OPT_CHOICE("mode", mode, "abd|lock", "PRISM-RS or the ABD-LOCK baseline (default abd)"),
		PU_OPT("keys", keys, "K", "blocks (default 16)"),
		PU_OPT("zipf", theta, "THETA", "key popularity, 0: uniform (default 0)"),
		PU_OPT("writes", writes, "PCT", "PUT share, 0 to 100 (default 50)"),
		PU_OPT("ops", nops, "N", "stop after N operations"),
		PU_OPT("duration", duration_ms, "MS", "stop after MS (one of --ops, --duration)"),
		PU_OPT("hist", hist_path, "FILE", "history for the linearizability checker"),
		PU_OPT("lat", lat_path, "FILE", "latency of every successful operation"),
		PU_OPT("ready", ready, "FILE", "written once set up, before waiting for --start"),
		PU_OPT("start", start, "FILE", "wait until it exists, then run"),
		PU_OPT("progress", progress, "FILE", "written after --progress-after successes"),
		PU_OPT("progress-after", progress_after, "N", "(default 50)"),
		PU_OPT("resume", resume, "FILE", "after --progress, wait until it exists"),
		PU_OPT_SET("broken", cfg.broken, "nowb|one|die-locked", "a broken client, for tests"),
		PU_OPT("seed", cfg.seed, "S", "random seed (default: pid)"),
		PU_OPT("chain-timeout", cfg.chain_timeout_ms, "MS", "per chain (default 1000)"),
		PU_OPT("op-timeout", cfg.op_timeout_ms, "MS", "per GET or PUT (default 10000)"),
		PU_OPT("lease", cfg.lease_ms, "MS", "lock lease (default 2000)"),
		PU_OPT_END,
	};
	const char *synopsis = "rs_client --if IF --info F1,F2,.. --id CID [options]";

	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = (unsigned int)getpid();
	if (pu_parse_opts(argc, argv, opts, synopsis) < 0)
		return 2;
	cfg.mode = mode;
	if (!cfg.ifname || !infos || !cfg.client_id || !keys || writes > 100 ||
	    (!nops && !duration_ms))
		return pu_opts_usage(opts, synopsis);
	list = strdup(infos);
	if (!list)
		return 1;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (cfg.n >= RS_MAX_REPLICAS) {
			fprintf(stderr, "rs_client: at most %d replicas\n", RS_MAX_REPLICAS);
			return 2;
		}
		in.path[cfg.n] = tok;
		err = pu_read_first_line(tok, in.line[cfg.n], sizeof(in.line[0]));
		if (!err)
			err = rs_info_parse(in.line[cfg.n], &cfg.rep[cfg.n]);
		if (err) {
			fprintf(stderr, "rs_client: %s: %s\n", tok, strerror(-err));
			return 1;
		}
		cfg.n++;
	}
	in.n = cfg.n;
	if (keys > cfg.rep[0].blocks) {
		fprintf(stderr, "rs_client: --keys %u > %u blocks\n", keys,
			cfg.rep[0].blocks);
		return 2;
	}
	err = rs_client_open(&c, &cfg);
	if (err) {
		fprintf(stderr, "rs_client: open: %s\n", strerror(-err));
		return 1;
	}
	val = malloc(rs_client_bsize(c));
	got = malloc(rs_client_bsize(c));
	if (!val || !got || pu_zipf_init(&zipf, keys, theta))
		return 1;
	if (hist_path && !(hist = fopen(hist_path, "w")))
		return perror(hist_path), 1;
	if (lat_path && !(lat = fopen(lat_path, "w")))
		return perror(lat_path), 1;
	if (pu_start_line("rs_client", ready, start, 60000))
		return 1;
	rng = ((__u64)cfg.seed << 20) ^ ((__u64)cfg.client_id << 44) ^ 0x2545f4914f6cdd1dULL;
	t0 = pu_now_ns();
	t_end = t0 + duration_ms * 1000000;
	next_reload = t0 + 100000000;
	while (nops ? done + failed < nops : pu_now_ns() < t_end) {
		__u32 key = pu_zipf_next(&zipf, &rng);
		int is_put = (pu_rng_next(&rng) % 100) < writes;
		uint64_t call, ret;
		__u64 id = 0;

		if (pu_now_ns() >= next_reload) {
			reloads += reload_infos(c, &in);
			next_reload = pu_now_ns() + 100000000;
		}
		if (is_put) {
			/* Unique value id: client id and sequence number. */
			id = ((__u64)cfg.client_id << 40) | ++seq;
			lc_value_fill(val, rs_client_bsize(c), id);
		}
		call = pu_now_ns();
		err = is_put ? rs_put(c, key, val) : rs_get(c, key, got);
		ret = pu_now_ns();
		if (!err && !is_put)
			id = lc_value_id(got, rs_client_bsize(c));
		if (err)
			failed++;
		else
			done++;
		if (hist && (is_put || !err)) {
			struct lc_op op = {
				.key = key, .value = id, .call = (int64_t)call,
				.ret = err ? LC_INF : (int64_t)ret,
				.kind = is_put ? LC_WRITE : LC_READ,
				.client = cfg.client_id,
			};

			lc_hist_write(hist, &op);
		}
		if (lat && !err)
			fprintf(lat, "%c %.1f\n", is_put ? 'p' : 'g',
				(double)(ret - call) / 1000.0);
		if (progress && done == progress_after) {
			FILE *f = fopen(progress, "w");

			if (f) {
				fprintf(f, "%llu\n", done);
				fclose(f);
			}
			/* Barrier: the test injects a fault, then lets us go on. */
			if (resume && pu_wait_file(resume, 60000)) {
				fprintf(stderr, "rs_client: no resume file %s\n", resume);
				return 1;
			}
		}
	}
	elapsed = pu_now_ns() - t0;
	/* Late completions (e.g. TIMEOUTs from a cut replica) count too. */
	rs_client_drain(c);
	st = rs_client_stats(c);
	printf("client=%u ops=%llu failed=%llu gets=%llu puts=%llu writebacks=%llu "
	       "cas_lost=%llu lock_retries=%llu lock_breaks=%llu recycled=%llu "
	       "chain_errors=%llu elapsed_ms=%lld reloads=%llu\n", cfg.client_id, done, failed,
	       (unsigned long long)st->gets, (unsigned long long)st->puts,
	       (unsigned long long)st->writebacks, (unsigned long long)st->cas_lost,
	       (unsigned long long)st->lock_retries, (unsigned long long)st->lock_breaks,
	       (unsigned long long)st->recycled, (unsigned long long)st->chain_errors,
	       (long long)(elapsed / 1000000), reloads);
	if (lat) {
		/* Elapsed goes last: rs_check lat takes the largest one. */
		fprintf(lat, "elapsed_us %lld\n", (long long)(elapsed / 1000));
		fclose(lat);
	}
	if (hist)
		fclose(hist);
	pu_zipf_free(&zipf);
	free(list);
	free(val);
	free(got);
	rs_client_close(c);
	return 0;
}
