// SPDX-License-Identifier: GPL-2.0
/*
 * Transaction workloads over PRISM-TX or the FaRM-style baseline.
 *
 * tx_client -s INFO1,INFO2[,...] [options]
 *   -i IFNAME     interface (eth0)
 *   -p PROTO      prism | farm
 *   -w WORKLOAD   bank  (transfers between random accounts, 10% audits
 *                        reading every account and checking the total)
 *                 skew  (read 2 keys, write one: write skew if reads are
 *                        not validated)
 *                 ycsb  (YCSB-T: read-modify-write of -r keys)
 *   -k KEYS       keys the workload uses (default: all of the shards')
 *   -r N          keys per YCSB-T transaction (4)
 *   -z THETA      Zipf skew (0: uniform)
 *   -c CID        client id of the first thread (1..65535)
 *   -t THREADS    client threads, one socket each (1)
 *   -d MS         run for MS milliseconds ... -n N  ... or N transactions per thread
 *   -I VALUE      initial value of every key (bank audits check KEYS*VALUE)
 *   -b BYTES      data one chain carries at most (TX_CHAIN_BYTES; 1100
 *                 keeps each chain in one 1500-byte frame)
 *   -H PREFIX     write committed transactions to PREFIX.<cid>
 *   -B            broken: skip read validation (the checker must object)
 *   -D FILE       dump the final state to FILE ("F key ver val") and exit
 *                 (ending pending writes whose lease ran out first); with
 *                 -k only keys 0..KEYS-1
 *   -L MS         PRISM-TX: lease of a pending write (500); a client that
 *                 finds one older ends it (tx.h, RECOVERY); 0: never
 *   -o FILE       also write the run's result file (prism_util's
 *                 pu_result: commits, failures, the latency histogram,
 *                 counters, with -T the timeline): result-merge combines
 *                 those of many processes and hosts
 *   -T MS         count the commits of each MS ms since the start (-o)
 *   -y FILE       written once set up (connected, keys chosen), then ...
 *   -g FILE       ... wait (60 s at most) for FILE before starting: clients
 *                 on many hosts start together
 *   -X STEP       tests of the recovery: the process kills itself
 *                 (SIGKILL) in the first transaction after its 5th commit
 *                 that writes keys of two shards or more, at STEP:
 *                 prepared (every prepare validated), deciding (the home
 *                 shard's chain submitted) or decided (it completed); that
 *                 transaction goes to the -H file as a 'P' line first
 * Values have the size the shard servers were started with (their info
 * files say it).  Prints one line of key=value results.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prism_util.h"
#include "txlib.h"

enum workload { W_BANK, W_SKEW, W_YCSB };

struct opts {
	const char *ifname, *infos, *hist, *dump, *out, *ready, *go;
	enum tx_proto proto;
	enum workload wl;
	unsigned int keys, per_tx, cid, threads, broken, chain_bytes;
	long lease_ms;
	enum tx_crash_point crash;
	double theta;
	long duration_ms, ntx, iv_ms;
	uint64_t init;
};

struct worker {
	pthread_t th;
	const struct opts *o;
	const struct pu_zipf *zipf;
	unsigned int cid;
	struct txc c;
	uint64_t rng;
	uint64_t start;		/* tx_now_us() of the run's start */
	uint64_t *lat;
	size_t nlat, caplat;
	uint64_t *tl;		/* -T: commits per interval */
	size_t n_iv;
	uint64_t audits, audit_bad, gave_up, attempts;
	FILE *hist;
	int err;
};

/*
 * tx_client -X: die at this point of t's commit if t is the first
 * transaction after the 5th commit that writes keys of two shards.
 */
static void crash_here(struct txc *c, const struct tx *t)
{
	struct worker *w = (struct worker *)(void *)((char *)c -
						     offsetof(struct worker, c));
	int first = -1, multi = 0;

	for (unsigned int i = 0; i < t->n; i++) {
		int s = tx_shard_of(c, t->it[i].key);

		if (!t->it[i].written)
			continue;
		if (first < 0)
			first = s;
		multi |= s != first;
	}
	if (c->st.commits < 5 || !multi)
		return;
	if (w->hist) {
		tx_record_pending(c, t, w->hist);
		fflush(w->hist);
	}
	fprintf(stderr, "tx_client: client %u dies in the commit of %" PRIu64 "\n",
		c->cid, t->ts);
	kill(getpid(), SIGKILL);
}

/* Per-thread xorshift64* (prism_util), seeded by client id. */
static uint32_t pick(struct worker *w)
{
	return pu_zipf_next(w->zipf, &w->rng);
}

/* n distinct keys. */
static void pick_keys(struct worker *w, uint32_t *keys, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int dup;

		do {
			keys[i] = pick(w);
			dup = 0;
			for (unsigned int j = 0; j < i; j++)
				dup |= keys[j] == keys[i];
		} while (dup);
	}
}

static void backoff(struct worker *w, unsigned int attempt)
{
	/* Randomized backoff after an abort so conflicting clients spread out. */
	unsigned int cap = attempt < 20 ? attempt : 20;
	long us = (long)(pu_rng_next(&w->rng) % (100 * cap + 1));
	struct timespec d = { 0, us * 1000 };

	nanosleep(&d, NULL);
}

/*
 * Run one logical transaction until it commits.  Returns TX_COMMITTED,
 * TX_ABORTED (gave up) or <0.
 */
static int one_tx(struct worker *w, FILE *hist)
{
	const struct opts *o = w->o;
	uint32_t keys[TX_MAX_KEYS_TX];
	unsigned int n = 0, audit = 0;
	uint64_t amount = 0;
	struct tx t;

	switch (o->wl) {
	case W_BANK:
		if (pu_rng_next(&w->rng) % 10 == 0 && o->keys <= TX_MAX_KEYS_TX) {
			audit = 1;
			for (n = 0; n < o->keys; n++)
				keys[n] = n;
		} else {
			n = 2;
			pick_keys(w, keys, 2);
			amount = 1 + pu_rng_next(&w->rng) % 10;
		}
		break;
	case W_SKEW:
		n = 2;
		pick_keys(w, keys, 2);
		break;
	case W_YCSB:
		n = o->per_tx;
		pick_keys(w, keys, n);
		break;
	}
	for (unsigned int attempt = 1; attempt <= 2000; attempt++) {
		int r;

		w->attempts++;
		tx_begin(&w->c, &t);
		r = tx_read(&w->c, &t, keys, n);
		if (r == 0) {
			switch (o->wl) {
			case W_BANK:
				if (!audit && tx_value(&t, keys[0]) >= amount) {
					tx_write(&t, keys[0], tx_value(&t, keys[0]) - amount);
					tx_write(&t, keys[1], tx_value(&t, keys[1]) + amount);
				}
				break;
			case W_SKEW:
				tx_write(&t, keys[0], tx_value(&t, keys[1]) + 1);
				break;
			case W_YCSB:
				for (unsigned int i = 0; i < n; i++)
					tx_write(&t, keys[i], tx_value(&t, keys[i]) + 1);
				break;
			}
			r = tx_commit(&w->c, &t);
		} else if (r == TX_ABORTED) {
			w->c.st.aborts++;
		}
		if (r < 0)
			return r;
		if (r == TX_COMMITTED) {
			if (audit) {
				uint64_t sum = 0;

				for (unsigned int i = 0; i < n; i++)
					sum += tx_value(&t, keys[i]);
				w->audits++;
				if (sum != (uint64_t)o->keys * o->init)
					w->audit_bad++;
			}
			if (hist)
				tx_record(&w->c, &t, hist);
			return TX_COMMITTED;
		}
		backoff(w, attempt);
	}
	w->gave_up++;
	return TX_ABORTED;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct opts *o = w->o;
	uint64_t start = w->start;
	FILE *hist = NULL;
	char path[512];

	if (o->hist) {
		snprintf(path, sizeof(path), "%s.%u", o->hist, w->cid);
		hist = fopen(path, "w");
		if (!hist) {
			w->err = -errno;
			return NULL;
		}
		/* -X: every committed line is in the file when the process dies */
		if (o->crash)
			setvbuf(hist, NULL, _IOLBF, 0);
		w->hist = hist;
	}
	for (long i = 0;; i++) {
		uint64_t t0 = tx_now_us(), now;
		int r;

		if (o->ntx ? i >= o->ntx :
		    (long)(t0 - start) >= o->duration_ms * 1000)
			break;
		r = one_tx(w, hist);
		if (r < 0) {
			w->err = r;
			break;
		}
		if (r == TX_COMMITTED) {
			if (w->nlat == w->caplat) {
				size_t cap = w->caplat ? 2 * w->caplat : 4096;
				uint64_t *n = realloc(w->lat, cap * sizeof(*n));

				if (!n) {
					w->err = -ENOMEM;
					break;
				}
				w->lat = n;
				w->caplat = cap;
			}
			now = tx_now_us();
			w->lat[w->nlat++] = now - t0;
			if (w->tl) {
				size_t iv = (size_t)((now - start) / 1000 / (uint64_t)o->iv_ms);

				w->tl[iv < w->n_iv ? iv : w->n_iv - 1]++;
			}
		}
	}
	txc_flush(&w->c);
	if (hist && fclose(hist))
		w->err = -EIO;
	return NULL;
}

static int dump(const struct opts *o)
{
	struct txc c;
	uint64_t sum;
	FILE *f;
	int r = txc_open(&c, o->ifname, o->infos, o->proto, o->cid);

	if (!r)
		c.lease_us = (uint64_t)o->lease_ms * 1000;
	if (!r && o->chain_bytes)
		r = txc_set_chain_bytes(&c, o->chain_bytes);
	if (r) {
		fprintf(stderr, "tx_client: open: %s\n", strerror(-r));
		return 1;
	}
	f = fopen(o->dump, "w");
	if (!f) {
		perror(o->dump);
		return 1;
	}
	r = tx_dump(&c, f, &sum, o->keys);
	if (fclose(f) || r < 0) {
		fprintf(stderr, "tx_client: dump failed\n");
		return 1;
	}
	printf("dump keys=%u sum=%" PRIu64 " pending=%d recovered_commits=%" PRIu64
	       " recovered_aborts=%" PRIu64 "\n",
	       o->keys && o->keys < c.nkeys ? o->keys : c.nkeys, sum, r,
	       c.st.recovered_commits, c.st.recovered_aborts);
	txc_close(&c);
	return r ? 1 : 0;
}

/* -o: the run's result file (pu_result_write), latencies in ns. */
static int write_result(const struct opts *o, const struct worker *w,
			const uint64_t *lat, size_t nlat, uint64_t commits,
			uint64_t errors, uint64_t elapsed_us, const char *counters)
{
	struct pu_hist *h = calloc(1, sizeof(*h));
	uint64_t *tl = NULL;
	size_t n = o->iv_ms ? w[0].n_iv : 0, i;
	FILE *f = NULL;
	int r = -ENOMEM;

	tl = n ? calloc(n, sizeof(*tl)) : NULL;
	if (!h || (n && !tl))
		goto out;
	for (i = 0; i < nlat; i++)
		pu_hist_record(h, lat[i] * 1000);
	for (unsigned int t = 0; t < o->threads && n; t++)
		for (i = 0; i < n; i++)
			tl[i] += w[t].tl[i];
	f = fopen(o->out, "w");
	if (!f) {
		r = -errno;
		goto out;
	}
	r = pu_result_write(f, commits, errors, (double)elapsed_us / 1e6, h,
			    (uint64_t)o->iv_ms, tl, n, counters);
	if (fclose(f) && !r)
		r = -EIO;
out:
	free(tl);
	free(h);
	return r;
}

static void usage(void)
{
	fprintf(stderr, "usage: tx_client -s INFO1,INFO2 [-i IF] [-p prism|farm] "
		"[-w bank|skew|ycsb] [-k KEYS] [-r N] [-z THETA] [-c CID] [-t THREADS] "
		"[-d MS | -n N] [-I VALUE] [-b BYTES] [-H PREFIX] [-B] [-D FILE] [-L MS]\n"
		"       [-o FILE [-T MS]] [-y FILE -g FILE] [-X prepared|deciding|decided]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = { .ifname = "eth0", .proto = TX_PROTO_PRISM, .wl = W_YCSB,
			  .per_tx = 4, .cid = 1, .threads = 1,
			  .duration_ms = 2000, .lease_ms = TX_LEASE_US / 1000 };
	struct tx_stats tot = { 0 };
	uint64_t audits = 0, audit_bad = 0, gave_up = 0, attempts = 0, *lat;
	size_t nlat = 0;
	struct worker *w;
	struct pu_zipf zipf;
	double mean = 0;
	uint64_t t0, elapsed;
	unsigned int vsize = 0;
	int opt, err = 0;

	while ((opt = getopt(argc, argv, "i:s:p:w:k:r:z:c:t:d:n:I:b:H:BD:L:X:o:T:y:g:")) != -1) {
		switch (opt) {
		case 'i': o.ifname = optarg; break;
		case 's': o.infos = optarg; break;
		case 'p':
			if (!strcmp(optarg, "prism"))
				o.proto = TX_PROTO_PRISM;
			else if (!strcmp(optarg, "farm"))
				o.proto = TX_PROTO_FARM;
			else
				usage();
			break;
		case 'w':
			if (!strcmp(optarg, "bank"))
				o.wl = W_BANK;
			else if (!strcmp(optarg, "skew"))
				o.wl = W_SKEW;
			else if (!strcmp(optarg, "ycsb"))
				o.wl = W_YCSB;
			else
				usage();
			break;
		case 'k': o.keys = (unsigned int)atoi(optarg); break;
		case 'r': o.per_tx = (unsigned int)atoi(optarg); break;
		case 'z': o.theta = atof(optarg); break;
		case 'c': o.cid = (unsigned int)atoi(optarg); break;
		case 't': o.threads = (unsigned int)atoi(optarg); break;
		case 'd': o.duration_ms = atol(optarg); break;
		case 'n': o.ntx = atol(optarg); break;
		case 'I': o.init = strtoull(optarg, NULL, 0); break;
		case 'b': o.chain_bytes = (unsigned int)atoi(optarg); break;
		case 'H': o.hist = optarg; break;
		case 'B': o.broken = 1; break;
		case 'D': o.dump = optarg; break;
		case 'L': o.lease_ms = atol(optarg); break;
		case 'o': o.out = optarg; break;
		case 'T': o.iv_ms = atol(optarg); break;
		case 'y': o.ready = optarg; break;
		case 'g': o.go = optarg; break;
		case 'X':
			if (!strcmp(optarg, "prepared"))
				o.crash = TX_CRASH_PREPARED;
			else if (!strcmp(optarg, "deciding"))
				o.crash = TX_CRASH_DECIDING;
			else if (!strcmp(optarg, "decided"))
				o.crash = TX_CRASH_DECIDED;
			else
				usage();
			break;
		default: usage();
		}
	}
	if (!o.infos || !o.threads || !o.cid || o.cid + o.threads > 65536 ||
	    !o.per_tx || o.per_tx > TX_MAX_KEYS_TX || o.iv_ms < 0 ||
	    (o.iv_ms && (!o.out || o.ntx || o.duration_ms / o.iv_ms > 100000)) ||
	    !o.ready != !o.go)
		usage();
	if (o.dump)
		return dump(&o);
	w = calloc(o.threads, sizeof(*w));
	if (!w)
		return 1;
	for (unsigned int i = 0; i < o.threads; i++) {
		int r = txc_open(&w[i].c, o.ifname, o.infos, o.proto, o.cid + i);

		if (!r && o.chain_bytes)
			r = txc_set_chain_bytes(&w[i].c, o.chain_bytes);
		if (r) {
			fprintf(stderr, "tx_client: open: %s\n", strerror(-r));
			return 1;
		}
		w[i].c.skip_read_validation = (int)o.broken;
		w[i].c.lease_us = (uint64_t)o.lease_ms * 1000;
		w[i].c.crash_at = o.crash;
		w[i].c.crash_fn = o.crash ? crash_here : NULL;
		if (!o.keys || o.keys > w[i].c.nkeys)
			o.keys = w[i].c.nkeys;
	}
	if (o.keys < 2 || o.keys < o.per_tx)
		usage();
	if (pu_zipf_init(&zipf, o.keys, o.theta))
		return 1;
	for (unsigned int i = 0; i < o.threads && o.iv_ms; i++) {
		w[i].n_iv = (size_t)((o.duration_ms + o.iv_ms - 1) / o.iv_ms) + 1;
		w[i].tl = calloc(w[i].n_iv, sizeof(*w[i].tl));
		if (!w[i].tl)
			return 1;
	}
	/* A Zipf table over millions of keys takes seconds: start together. */
	if (pu_start_line("tx_client", o.ready, o.go, 60000))
		return 1;
	t0 = tx_now_us();
	for (unsigned int i = 0; i < o.threads; i++) {
		w[i].start = t0;
		w[i].o = &o;
		w[i].zipf = &zipf;
		w[i].cid = o.cid + i;
		w[i].rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)w[i].cid << 32) ^ t0;
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]))
			return 1;
	}
	for (unsigned int i = 0; i < o.threads; i++) {
		pthread_join(w[i].th, NULL);
		nlat += w[i].nlat;
	}
	elapsed = tx_now_us() - t0;
	lat = malloc((nlat + 1) * sizeof(*lat));
	if (!lat)
		return 1;
	nlat = 0;
	for (unsigned int i = 0; i < o.threads; i++) {
		struct tx_stats *s = &w[i].c.st;

		if (w[i].err) {
			fprintf(stderr, "tx_client: thread %u: %s\n", i,
				strerror(-w[i].err));
			err = 1;
		}
		memcpy(lat + nlat, w[i].lat, w[i].nlat * sizeof(*lat));
		nlat += w[i].nlat;
		tot.commits += s->commits;
		tot.aborts += s->aborts;
		tot.timeouts += s->timeouts;
		tot.nobuf_retries += s->nobuf_retries;
		tot.recycled += s->recycled;
		tot.recycle_lost += s->recycle_lost;
		tot.rpc_resends += s->rpc_resends;
		tot.torn += s->torn;
		tot.recovered_commits += s->recovered_commits;
		tot.recovered_aborts += s->recovered_aborts;
		tot.aborted_by_recovery += s->aborted_by_recovery;
		tot.install_found_done += s->install_found_done;
		vsize = w[i].c.vsize;
		audits += w[i].audits;
		audit_bad += w[i].audit_bad;
		gave_up += w[i].gave_up;
		attempts += w[i].attempts;
		txc_close(&w[i].c);
		free(w[i].lat);
	}
	qsort(lat, nlat, sizeof(*lat), pu_cmp_u64);
	for (size_t i = 0; i < nlat; i++)
		mean += (double)lat[i];
	mean = nlat ? mean / (double)nlat : 0;
	printf("proto=%s workload=%s theta=%.2f threads=%u keys=%u vsize=%u commits=%" PRIu64
	       " aborts=%" PRIu64 " abort_rate=%.4f tput=%.1f lat_mean_us=%.0f"
	       " lat_p99_us=%" PRIu64 " audits=%" PRIu64 " audit_bad=%" PRIu64
	       " gave_up=%" PRIu64 " timeouts=%" PRIu64 " nobuf=%" PRIu64
	       " recycled=%" PRIu64 " recycle_lost=%" PRIu64 " rpc_resends=%" PRIu64
	       " torn=%" PRIu64 " recovered_commits=%" PRIu64 " recovered_aborts=%" PRIu64
	       " aborted_by_recovery=%" PRIu64 " install_found_done=%" PRIu64 " errors=%d\n",
	       o.proto == TX_PROTO_PRISM ? "prism" : "farm",
	       o.wl == W_BANK ? "bank" : o.wl == W_SKEW ? "skew" : "ycsb",
	       o.theta, o.threads, o.keys, vsize, tot.commits, tot.aborts,
	       attempts ? (double)tot.aborts / (double)attempts : 0.0,
	       elapsed ? (double)tot.commits * 1e6 / (double)elapsed : 0.0, mean,
	       nlat ? lat[(nlat * 99) / 100 < nlat ? (nlat * 99) / 100 : nlat - 1] : 0,
	       audits, audit_bad, gave_up, tot.timeouts, tot.nobuf_retries,
	       tot.recycled, tot.recycle_lost, tot.rpc_resends, tot.torn,
	       tot.recovered_commits, tot.recovered_aborts, tot.aborted_by_recovery,
	       tot.install_found_done, err);
	if (o.out) {
		char counters[512];
		int r;

		snprintf(counters, sizeof(counters), "aborts=%" PRIu64 " timeouts=%" PRIu64
			 " gave_up=%" PRIu64 " audits=%" PRIu64 " audit_bad=%" PRIu64
			 " nobuf=%" PRIu64 " recycled=%" PRIu64 " recycle_lost=%" PRIu64
			 " rpc_resends=%" PRIu64 " torn=%" PRIu64 " install_found_done=%" PRIu64,
			 tot.aborts, tot.timeouts, gave_up, audits, audit_bad,
			 tot.nobuf_retries, tot.recycled, tot.recycle_lost, tot.rpc_resends,
			 tot.torn, tot.install_found_done);
		r = write_result(&o, w, lat, nlat, tot.commits, gave_up + (uint64_t)err,
				 elapsed, counters);
		if (r) {
			fprintf(stderr, "tx_client: %s: %s\n", o.out, strerror(-r));
			err = 1;
		}
	}
	for (unsigned int i = 0; i < o.threads; i++)
		free(w[i].tl);
	free(lat);
	pu_zipf_free(&zipf);
	free(w);
	return err || audit_bad ? 1 : 0;
}
