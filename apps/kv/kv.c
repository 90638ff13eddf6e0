// SPDX-License-Identifier: MIT
/*
 * kv: command-line client and YCSB-style benchmark driver for PRISM-KV.
 *
 *   kv [--if IF] [--info FILE] get KEY          value on stdout
 *   kv [--if IF] [--info FILE] put KEY VALUE    VALUE "-": read stdin
 *   kv [--if IF] [--info FILE] delete KEY
 *   kv [--if IF] [--info FILE | --memcached IP:PORT] bench [options]
 *   kv merge FILE...                            combine bench result files
 *                                               (of processes, of hosts)
 *
 * --if defaults to eth0, --info to $KV_INFO.  The server may be PRISM-KV or
 * Pilaf (the address file says which).  Exit status: 0 ok, 1 key not
 * found, 2 usage error or key/value too large, 3 any other error.
 *
 * bench options:
 *   --workload A|B|C   read share 50 / 95 / 100 %          (default A)
 *   --dist uniform|zipf  key popularity                     (default zipf)
 *   --theta T          Zipf parameter, 0..10                (default 0.99)
 *   --records N        keys 00000000.. (8 bytes, as the paper's; default 1000)
 *   --value N          value bytes (default 512)
 *   --seconds S        run time (default 3)
 *   --depth D          D operations in flight: D closed loops, each a
 *                      thread with its own client (default 1, at most 256)
 *   --interval MS      also record the operations completed in each MS ms
 *                      since the start: the timeline (default none)
 *   --seed N           random seed (default: pid)
 *   --load             store all records first, then exit
 *   --out FILE         result file for "kv merge" (default: stdout)
 *   --ready FILE       written once set up, before waiting for --start
 *   --start FILE       wait (at most 60 s) until FILE exists, then run
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
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

/* What every loop of one kv bench run shares. */
struct bench_cfg {
	const struct kv_keygen	*gen;
	double			read_share;
	size_t			vsize;
	uint64_t		start;		/* pu_now_ns() of the start */
	uint64_t		end;
	uint64_t		interval_ns;	/* of the timeline, 0: none */
	size_t			n_iv;		/* timeline intervals */
};

/*
 * One closed loop of the benchmark: a thread with its own client (its own
 * PRISM socket, or memcached connection), one operation in flight.
 */
struct bench_loop {
	const struct bench_cfg	*cfg;
	struct store		st;
	struct kv_rng		rng;
	struct pu_hist		*hist;
	uint64_t		*timeline;	/* ops completed per interval */
	uint64_t		ops, errors, seq, last;
	pthread_t		thread;
	unsigned char		val[KV_MAX_ENTRY], got[KV_MAX_ENTRY];
};

static void *bench_loop_run(void *arg)
{
	struct bench_loop *l = arg;
	const struct bench_cfg *cfg = l->cfg;
	uint64_t t0, t1, k;
	size_t vlen;
	char key[32];
	int err;

	for (t0 = cfg->start; t0 < cfg->end; t0 = t1) {
		k = kv_keygen_next(cfg->gen, &l->rng);
		kv_key_name(k, key, sizeof(key));
		if (kv_rng_unit(&l->rng) < cfg->read_share) {
			err = store_get(&l->st, key, l->got, sizeof(l->got), &vlen);
			/* whole values of the right size, never torn */
			if (!err && (vlen != cfg->vsize || !kv_value_ok(l->got, vlen)))
				err = -EBADMSG;
		} else {
			kv_value_fill(l->val, cfg->vsize, k, ++l->seq);
			err = store_put(&l->st, key, l->val, cfg->vsize);
		}
		t1 = pu_now_ns();
		if (err) {
			if (!l->errors++)
				report("bench op", err);
			continue;
		}
		l->ops++;
		pu_hist_record(l->hist, t1 - t0);
		if (cfg->interval_ns) {
			uint64_t iv = (t1 - cfg->start) / cfg->interval_ns;

			l->timeline[iv < cfg->n_iv ? iv : cfg->n_iv - 1]++;
		}
	}
	l->last = t0;
	return NULL;
}

static void bench_store_close(struct store *st)
{
	if (st->is_mc)
		mc_close(&st->mc);
	else if (st->kv)
		kv_client_close(st->kv);
}

static int bench_store_open(struct store *st)
{
	int err;

	if (!mc_addr)
		return open_client(&st->kv) ? 3 : 0;
	st->is_mc = 1;
	err = mc_connect(&st->mc, mc_addr);
	return err ? report("memcached connect", err) : 0;
}

/* memcached: sets in flight at once while loading (each answer checked). */
#define KV_MC_LOAD_WINDOW	64

static int bench_load(struct store *st, uint64_t records, size_t vsize)
{
	static unsigned char val[KV_MAX_ENTRY];
	uint64_t i, answered = 0;
	char key[32];
	int err = 0;

	for (i = 0; i < records && !err; i++) {
		kv_key_name(i, key, sizeof(key));
		kv_value_fill(val, vsize, i, 0);
		if (!st->is_mc) {
			err = store_put(st, key, val, vsize);
			continue;
		}
		/* 8 M sets one round trip each take hours in the guest */
		err = mc_set_send(&st->mc, key, val, vsize);
		if (!err && i + 1 - answered >= KV_MC_LOAD_WINDOW) {
			err = mc_set_reply(&st->mc);
			answered++;
		}
	}
	while (!err && st->is_mc && answered < i) {
		err = mc_set_reply(&st->mc);
		answered++;
	}
	if (err)
		return report("load", err);
	printf("loaded %" PRIu64 " records of %zu bytes\n", records, vsize);
	return 0;
}

/*
 * The result file "kv merge" reads (pu_result_write): operations, the
 * latency histogram, with --interval the timeline, and the clients'
 * counters.
 */
static int bench_write(const char *out, struct bench_loop *loops,
		       unsigned int n, const struct bench_cfg *cfg)
{
	static struct pu_hist all;
	struct kv_client_stats sum = { 0 };
	uint64_t ops = 0, errors = 0, last = cfg->start, *tl;
	char counters[256] = "";
	unsigned int t;
	size_t i;
	FILE *f;
	int err;

	tl = calloc(cfg->n_iv + 1, sizeof(*tl));
	if (!tl)
		return report("bench", -ENOMEM);
	for (t = 0; t < n; t++) {
		ops += loops[t].ops;
		errors += loops[t].errors;
		if (loops[t].last > last)
			last = loops[t].last;
		pu_hist_merge(&all, loops[t].hist);
		for (i = 0; i < cfg->n_iv; i++)
			tl[i] += loops[t].timeline[i];
		if (!loops[t].st.is_mc) {
			const struct kv_client_stats *cs = kv_client_stats(loops[t].st.kv);

			sum.probes += cs->probes;
			sum.torn_reads += cs->torn_reads;
			sum.cas_failures += cs->cas_failures;
			sum.no_buffer += cs->no_buffer;
			sum.recycled += cs->recycled;
		}
	}
	if (!mc_addr)
		snprintf(counters, sizeof(counters), "probes=%" PRIu64 " torn_reads=%"
			 PRIu64 " cas_failures=%" PRIu64 " no_buffer=%" PRIu64
			 " recycled=%" PRIu64, sum.probes, sum.torn_reads,
			 sum.cas_failures, sum.no_buffer, sum.recycled);
	f = out ? fopen(out, "w") : stdout;
	if (!f) {
		free(tl);
		return report(out, -errno);
	}
	err = pu_result_write(f, ops, errors, (double)(last - cfg->start) / 1e9,
			      &all, cfg->interval_ns / 1000000, tl, cfg->n_iv, counters);
	free(tl);
	if (out && fclose(f) && !err)
		err = -errno;
	return err ? report(out ? out : "stdout", err) : 0;
}

#define KV_BENCH_MAX_DEPTH	256
#define KV_BENCH_MAX_IV		100000

static int cmd_bench(int argc, char **argv)
{
	static const double read_shares[] = { 0.5, 0.95, 1.0 };
	uint64_t records = 1000, seed = (uint64_t)getpid(), interval_ms = 0;
	unsigned int depth = 1, t, started = 0;
	double seconds = 3, theta = 0.99;
	int workload = 0, zipf = 1, load = 0, err, ret = 0;
	size_t vsize = 512;
	const char *out = NULL, *ready = NULL, *start_file = NULL;
	struct kv_keygen gen = { 0 };
	struct bench_cfg cfg = { 0 };
	struct bench_loop *loops = NULL;
	const struct pu_opt opts[] = {
		PU_OPT_CHOICE("workload", workload, "A|B|C", "read share 50 / 95 / 100 % (default A)"),
		PU_OPT_CHOICE("dist", zipf, "uniform|zipf", "key popularity (default zipf)"),
		PU_OPT("theta", theta, "T", "Zipf parameter, 0 <= T <= 10 (default 0.99)"),
		PU_OPT("records", records, "N", "keys 00000000.. (default 1000)"),
		PU_OPT("value", vsize, "N", "value bytes (default 512)"),
		PU_OPT("seconds", seconds, "S", "run time (default 3)"),
		PU_OPT("depth", depth, "D", "operations in flight: D closed loops, each a thread with its own client (default 1)"),
		PU_OPT("interval", interval_ms, "MS", "record the operations completed per MS ms (the timeline; default none)"),
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
	if (!records || records > KV_MAX_RECORDS || vsize > KV_MAX_VALUE ||
	    seconds <= 0 || seconds > 86400 || !depth || depth > KV_BENCH_MAX_DEPTH ||
	    !(theta >= 0 && theta <= 10) ||
	    (interval_ms && seconds * 1000 / (double)interval_ms > KV_BENCH_MAX_IV))
		return pu_opts_usage(opts, synopsis);
	loops = calloc(depth, sizeof(*loops));
	if (!loops)
		return report("bench", -ENOMEM);
	cfg.read_share = read_shares[workload];
	cfg.vsize = vsize;
	cfg.gen = &gen;
	if (interval_ms) {
		cfg.interval_ns = interval_ms * 1000000;
		/* and one for what completes after the end (merge drops it) */
		cfg.n_iv = (size_t)ceil(seconds * 1000 / (double)interval_ms) + 1;
	}
	for (t = 0; t < depth; t++) {
		struct bench_loop *l = &loops[t];

		l->cfg = &cfg;
		l->hist = calloc(1, sizeof(*l->hist));
		l->timeline = calloc(cfg.n_iv + 1, sizeof(*l->timeline));
		kv_rng_seed(&l->rng, pu_splitmix64(seed + t));
		if (!l->hist || !l->timeline) {
			ret = report("bench", -ENOMEM);
			goto done;
		}
		ret = bench_store_open(&l->st);
		if (ret)
			goto done;
		if (load) {
			ret = bench_load(&l->st, records, vsize);
			goto done;
		}
	}
	err = kv_keygen_init(&gen, records, zipf, theta);
	if (err) {
		ret = report("keys", err);
		goto done;
	}
	/* A Zipf table of millions of keys takes seconds: start together. */
	err = pu_start_line("kv", ready, start_file, 60000);
	if (err) {
		ret = exit_code(err);
		goto done;
	}
	cfg.start = pu_now_ns();
	cfg.end = cfg.start + (uint64_t)(seconds * 1e9);
	for (; started < depth; started++) {
		err = pthread_create(&loops[started].thread, NULL, bench_loop_run,
				     &loops[started]);
		if (err) {
			ret = report("bench thread", -err);
			break;
		}
	}
	for (t = 0; t < started; t++)
		pthread_join(loops[t].thread, NULL);
	if (!ret)
		ret = bench_write(out, loops, depth, &cfg);
done:
	kv_keygen_free(&gen);
	for (t = 0; t < depth; t++) {
		bench_store_close(&loops[t].st);
		free(loops[t].hist);
		free(loops[t].timeline);
	}
	free(loops);
	return ret;
}

/*
 * Combine result files of concurrent clients (processes, hosts) into one
 * JSON object (pu_result_json): operations, throughput (the sum of each
 * file's), latency from the merged histograms, the clients' counters, and
 * the timeline summed interval by interval when every file has one of the
 * same interval (the clients started together: kv bench --start).
 */
static int cmd_merge(int argc, char **argv)
{
	return pu_result_merge_print("kv merge", argc - 1, argv + 1);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kv [--if IF] [--info FILE] get KEY | put KEY VALUE|- | delete KEY\n"
		"       kv [--if IF] [--info FILE | --memcached IP:PORT] bench [--workload A|B|C]\n"
		"          [--dist uniform|zipf] [--theta T] [--records N] [--value N]\n"
		"          [--seconds S] [--depth D] [--interval MS] [--seed N] [--load]\n"
		"          [--out FILE] [--ready FILE] [--start FILE]\n"
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
