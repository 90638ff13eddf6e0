// SPDX-License-Identifier: MIT
/*
 * kv: command-line client and YCSB-style benchmark driver for PRISM-KV.
 *
 *   kv [--if IF] [--info FILE] get KEY          value on stdout
 *   kv [--if IF] [--info FILE] put KEY VALUE    VALUE "-": read stdin
 *   kv [--if IF] [--info FILE] delete KEY
 *   kv [--if IF] [--info FILE | --memcached IP:PORT] bench [options]
 *   kv merge FILE...                            combine bench result files
 *
 * --if defaults to eth0, --info to $KV_INFO.  The server may be PRISM-KV or
 * Pilaf (the address file says which).  Exit status: 0 ok, 1 key not
 * found, 2 usage error or key/value too large, 3 any other error.
 *
 * bench options:
 *   --workload A|B|C   read share 50 / 95 / 100 %          (default A)
 *   --dist uniform|zipf  key popularity, Zipf theta 0.99    (default zipf)
 *   --records N        keys 00000000.. (8 bytes, as the paper's; default 1000)
 *   --value N          value bytes (default 512)
 *   --seconds S        run time (default 3)
 *   --seed N           random seed (default: pid)
 *   --load             store all records first, then exit
 *   --out FILE         result file for "kv merge" (default: stdout)
 *   --ready FILE       written once set up, before waiting for --start
 *   --start FILE       wait (at most 60 s) until FILE exists, then run
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv_client.h"
#include "kv_memcached.h"
#include "kv_workload.h"

static const char *ifname = "eth0";
static const char *info_path;
static const char *mc_addr;

static int exit_code(int err)
{
	switch (err) {
	case 0:		return 0;
	case -ENOENT:	return 1;
	case -E2BIG:
	case -EINVAL:	return 2;
	default:	return 3;
	}
}

static int report(const char *what, int err)
{
	if (err == -ENOENT)
		fprintf(stderr, "kv: %s: not found\n", what);
	else if (err == -E2BIG)
		fprintf(stderr, "kv: %s: key > %u bytes or value > %u bytes\n",
			what, KV_MAX_KEY, KV_MAX_VALUE);
	else if (err)
		fprintf(stderr, "kv: %s: %s\n", what, strerror(-err));
	return exit_code(err);
}

static int open_client(struct kv_client **c)
{
	int err;

	if (!info_path) {
		fprintf(stderr, "kv: no server: --info FILE or KV_INFO\n");
		return -EINVAL;
	}
	err = kv_client_open(c, ifname, info_path, 0);
	if (err)
		fprintf(stderr, "kv: connecting via %s to %s: %s\n", ifname,
			info_path, strerror(-err));
	return err;
}

static int cmd_get(int argc, char **argv)
{
	unsigned char val[KV_MAX_ENTRY];
	struct kv_client *c;
	size_t vlen = 0;
	int err;

	if (argc != 2)
		return 2;
	if (open_client(&c))
		return 3;
	err = kv_get(c, argv[1], strlen(argv[1]), val, sizeof(val), &vlen, NULL);
	if (!err)
		fwrite(val, 1, vlen, stdout);
	kv_client_close(c);
	return report("get", err);
}

static int cmd_put(int argc, char **argv)
{
	static unsigned char val[KV_MAX_VALUE + 1];
	struct kv_client *c;
	size_t vlen;
	int err;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[2], "-")) {
		vlen = fread(val, 1, sizeof(val), stdin);
	} else {
		vlen = strlen(argv[2]);
		if (vlen > sizeof(val))
			return report("put", -E2BIG);
		memcpy(val, argv[2], vlen);
	}
	if (open_client(&c))
		return 3;
	err = kv_put(c, argv[1], strlen(argv[1]), val, vlen);
	kv_client_close(c);
	return report("put", err);
}

static int cmd_delete(int argc, char **argv)
{
	struct kv_client *c;
	int err;

	if (argc != 2)
		return 2;
	if (open_client(&c))
		return 3;
	err = kv_delete(c, argv[1], strlen(argv[1]));
	kv_client_close(c);
	return report("delete", err);
}

/* ---- bench ---- */

struct store {
	struct kv_client	*kv;
	struct mc_conn		mc;
	int			is_mc;
};

static int store_get(struct store *s, const char *key, void *val, size_t cap,
		     size_t *vlen)
{
	if (s->is_mc)
		return mc_get(&s->mc, key, val, cap, vlen);
	return kv_get(s->kv, key, strlen(key), val, cap, vlen, NULL);
}

static int store_put(struct store *s, const char *key, const void *val,
		     size_t vlen)
{
	if (s->is_mc)
		return mc_set(&s->mc, key, val, vlen);
	return kv_put(s->kv, key, strlen(key), val, vlen);
}

static int cmd_bench(int argc, char **argv)
{
	static const double read_shares[] = { 0.5, 0.95, 1.0 };
	static unsigned char val[KV_MAX_ENTRY], got[KV_MAX_ENTRY];
	static struct pu_hist hist;
	uint64_t records = 1000, seed = (uint64_t)getpid(), ops = 0, errors = 0;
	uint64_t start, end, t0, seq = 0, i;
	double read_share, seconds = 3;
	int workload = 0, zipf = 1, load = 0, err, ret = 0;
	size_t vsize = 512, vlen;
	const char *out = NULL, *ready = NULL, *start_file = NULL;
	struct kv_keygen gen = { 0 };
	struct store st = { 0 };
	struct kv_rng rng;
	char key[32];
	FILE *f;
	const struct pu_opt opts[] = {
		PU_OPT_CHOICE("workload", workload, "A|B|C", "read share 50 / 95 / 100 % (default A)"),
		PU_OPT_CHOICE("dist", zipf, "uniform|zipf", "key popularity, Zipf theta 0.99 (default zipf)"),
		PU_OPT("records", records, "N", "keys 00000000.. (default 1000)"),
		PU_OPT("value", vsize, "N", "value bytes (default 512)"),
		PU_OPT("seconds", seconds, "S", "run time (default 3)"),
		PU_OPT("seed", seed, "N", "random seed (default: pid)"),
		PU_OPT_FLAG("load", load, "store all records first, then exit"),
		PU_OPT("out", out, "FILE", "result file for \"kv merge\" (default: stdout)"),
		PU_OPT("ready", ready, "FILE", "written once set up (keys chosen), before --start"),
		PU_OPT("start", start_file, "FILE", "wait (60 s at most) until it exists, then run"),
		PU_OPT_END,
	};
	const char *synopsis = "kv [--if IF] [--info FILE | --memcached IP:PORT] bench [options]";

	if (pu_parse_opts(argc, argv, opts, synopsis) < 0)
		return 2;
	read_share = read_shares[workload];
	if (!records || records > KV_MAX_RECORDS || vsize > sizeof(val) ||
	    seconds <= 0)
		return pu_opts_usage(opts, synopsis);
	if (mc_addr) {
		st.is_mc = 1;
		err = mc_connect(&st.mc, mc_addr);
		if (err)
			return report("memcached connect", err);
	} else if (open_client(&st.kv)) {
		return 3;
	}

	if (load) {
		for (i = 0; i < records; i++) {
			kv_key_name(i, key, sizeof(key));
			kv_value_fill(val, vsize, i, 0);
			err = store_put(&st, key, val, vsize);
			if (err)
				return report("load", err);
		}
		printf("loaded %" PRIu64 " records of %zu bytes\n", records, vsize);
		goto done;
	}

	kv_rng_seed(&rng, seed);
	err = kv_keygen_init(&gen, records, zipf, 0.99);
	if (err) {
		ret = report("keys", err);
		goto done;
	}
	/* A Zipf table of millions of keys takes seconds: start together. */
	err = ready ? pu_write_atomic(ready, "ready\n") : 0;
	if (!err && start_file)
		err = pu_wait_file(start_file, 60000);
	if (err) {
		ret = report(err == -ETIMEDOUT ? start_file : ready, err);
		goto done;
	}
	start = pu_now_ns();
	end = start + (uint64_t)(seconds * 1e9);
	for (t0 = start; t0 < end;) {
		uint64_t k = kv_keygen_next(&gen, &rng), t1;

		kv_key_name(k, key, sizeof(key));
		if (kv_rng_unit(&rng) < read_share) {
			err = store_get(&st, key, got, sizeof(got), &vlen);
			/* whole values of the right size, never torn */
			if (!err && (vlen != vsize || !kv_value_ok(got, vlen)))
				err = -EBADMSG;
		} else {
			kv_value_fill(val, vsize, k, ++seq);
			err = store_put(&st, key, val, vsize);
		}
		t1 = pu_now_ns();
		if (err) {
			errors++;
			if (errors == 1)
				report("bench op", err);
		} else {
			ops++;
			pu_hist_record(&hist, t1 - t0);
		}
		t0 = t1;
	}
	f = out ? fopen(out, "w") : stdout;
	if (!f)
		return report(out, -errno);
	fprintf(f, "run %" PRIu64 " %" PRIu64 " %.6f\n", ops, errors,
		(double)(t0 - start) / 1e9);
	pu_hist_write(&hist, f);
	if (!st.is_mc) {
		const struct kv_client_stats *cs = kv_client_stats(st.kv);

		fprintf(f, "client probes=%" PRIu64 " torn=%" PRIu64 " cas_failures=%"
			PRIu64 " no_buffer=%" PRIu64 " recycled=%" PRIu64 "\n",
			cs->probes, cs->torn_reads, cs->cas_failures, cs->no_buffer,
			cs->recycled);
	}
	if (out)
		fclose(f);
done:
	kv_keygen_free(&gen);
	if (st.is_mc)
		mc_close(&st.mc);
	else
		kv_client_close(st.kv);
	return ret;
}

/* Combine result files of concurrent clients into one JSON object. */
static int cmd_merge(int argc, char **argv)
{
	static struct pu_hist all, one;
	uint64_t ops = 0, errors = 0, torn = 0, cas = 0;
	struct pu_json j;
	double tput = 0;
	int i;

	for (i = 1; i < argc; i++) {
		uint64_t o, e, pr, t, cf;
		char line[256];
		double secs;
		FILE *f = fopen(argv[i], "r");

		if (!f)
			return report(argv[i], -errno);
		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "run %" SCNu64 " %" SCNu64 " %lf", &o, &e, &secs) != 3 ||
		    pu_hist_read(&one, f)) {
			fclose(f);
			fprintf(stderr, "kv merge: %s: malformed\n", argv[i]);
			return 3;
		}
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "client probes=%" SCNu64 " torn=%" SCNu64
			   " cas_failures=%" SCNu64, &pr, &t, &cf) == 3) {
			torn += t;
			cas += cf;
		}
		fclose(f);
		ops += o;
		errors += e;
		if (secs > 0)
			tput += (double)o / secs;
		pu_hist_merge(&all, &one);
	}
	pu_json_begin(&j, stdout);
	pu_json_int(&j, "clients", argc - 1);
	pu_json_u64(&j, "ops", ops);
	pu_json_u64(&j, "errors", errors);
	pu_json_double(&j, "throughput", 1, tput);
	pu_json_double(&j, "mean_us", 1, pu_hist_mean(&all) / 1e3);
	pu_json_double(&j, "p50_us", 1, (double)pu_hist_percentile(&all, 0.50) / 1e3);
	pu_json_double(&j, "p99_us", 1, (double)pu_hist_percentile(&all, 0.99) / 1e3);
	pu_json_u64(&j, "torn_reads", torn);
	pu_json_u64(&j, "cas_failures", cas);
	pu_json_end(&j);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kv [--if IF] [--info FILE] get KEY | put KEY VALUE|- | delete KEY\n"
		"       kv [--if IF] [--info FILE | --memcached IP:PORT] bench [--workload A|B|C]\n"
		"          [--dist uniform|zipf] [--records N] [--value N] [--seconds S]\n"
		"          [--seed N] [--load] [--out FILE]\n"
		"       kv merge FILE...\n"
		"limits: key 1..%u bytes, value 0..%u bytes\n",
		KV_MAX_KEY, KV_MAX_VALUE);
	exit(2);
}

int main(int argc, char **argv)
{
	int i = 1;

	info_path = getenv("KV_INFO");
	while (i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-') {
		if (!strcmp(argv[i], "--if"))
			ifname = argv[i + 1];
		else if (!strcmp(argv[i], "--info"))
			info_path = argv[i + 1];
		else if (!strcmp(argv[i], "--memcached"))
			mc_addr = argv[i + 1];
		else
			usage();
		i += 2;
	}
	if (i >= argc)
		usage();
	argc -= i;
	argv += i;
	if (!strcmp(argv[0], "get"))
		return argc != 2 ? (usage(), 2) : cmd_get(argc, argv);
	if (!strcmp(argv[0], "put"))
		return argc != 3 ? (usage(), 2) : cmd_put(argc, argv);
	if (!strcmp(argv[0], "delete"))
		return argc != 2 ? (usage(), 2) : cmd_delete(argc, argv);
	if (!strcmp(argv[0], "bench"))
		return cmd_bench(argc, argv);
	if (!strcmp(argv[0], "merge"))
		return cmd_merge(argc, argv);
	usage();
	return 2;
}
