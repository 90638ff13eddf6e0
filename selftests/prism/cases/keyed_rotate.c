// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: rotations of keyed regions (the server of each case:
 * keyed.h, keyed.c).
 *
 *   keyed_rekey   a bogus key, another endpoint's key, rotation without
 *                 and with an overlap, detach
 *   keyed_rekey_op  the remote REKEY op: refused unsealed (ENOKEY) and
 *                 without the admin right (ACCESS); with an admin key it
 *                 rotates the key, which no captured frame shows; with
 *                 an overlap the old keys keep working
 *   keyed_rotation  rotations every 100 ms under continuous READs: none
 *                 fails with an overlap; without, the failures are counted,
 *                 and with the client's new key attached at once, the
 *                 unavailability of each rotation is measured
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
#include "keyed.h"
#include "prism_util.h"

/* Expect the chain status of one sealed READ of the keyed region. */
static void keyed_read(struct client *c, struct kserver *k, int status,
		       const char *what)
{
	struct prism_chain_buf ch;

	cl_chain(c, &ch);
	prism_prep_read(&ch, k->kr, (__u64)(uintptr_t)k->kmem, 8);
	expect_status(kexec(c, k, &ch), status, what);
}

int case_keyed_rekey(struct client *c)
{
	union prism_sockaddr other;
	struct prism_stats s0;
	__u8 kd[PRISM_KEY_SIZE], old[PRISM_KEY_SIZE];
	long long t0, left;
	struct kserver k;
	__u32 gen = 0;

	if (kserver_open(c, &k, true))
		goto out;

	/* A key that was not derived for us: refused at once, counted. */
	fill_key(kd, 9);
	EXPECT_ERR(prism_attach_key(c->fd, &k.sa.eth, k.kr, PRISM_ACCESS_ALL, kd), 0,
		   "attach a bogus key");
	s0 = kstats(k.s);
	t0 = now_ms();
	keyed_read(c, &k, PRISM_S_AUTH_FAILED, "READ with a bogus key");
	st_diag("AUTH_FAILED after %lld ms", now_ms() - t0);
	EXPECT_EQ(kstats(k.s).auth_failed - s0.auth_failed, 1, "auth_failed at the target");
	EXPECT_EQ(kstats(k.s).chains_served - s0.chains_served, 0, "chains served");

	/* The key of another endpoint of our host. */
	other = c->me;
	other.eth.sprism_ep++;
	EXPECT_ERR(prism_derive_key(k.s, k.kr, &other.eth, PRISM_ACCESS_ALL, kd, NULL), 0,
		   "derive another endpoint's key");
	EXPECT_ERR(prism_attach_key(c->fd, &k.sa.eth, k.kr, PRISM_ACCESS_ALL, kd), 0,
		   "attach it");
	keyed_read(c, &k, PRISM_S_AUTH_FAILED, "READ with another endpoint's key");
	/* A key derived for other rights than the frame claims. */
	EXPECT_ERR(prism_derive_key(k.s, k.kr, &c->me.eth, PRISM_ACCESS_REMOTE_READ, kd,
				    NULL), 0, "derive a read-only key");
	EXPECT_ERR(prism_attach_key(c->fd, &k.sa.eth, k.kr, PRISM_ACCESS_ALL, kd), 0,
		   "attach it claiming all rights");
	keyed_read(c, &k, PRISM_S_AUTH_FAILED, "READ claiming rights the key lacks");

	/* Rotation without an overlap: the old key fails at once. */
	if (give_key(c, &k, k.kr, PRISM_ACCESS_ALL))
		goto out;
	keyed_read(c, &k, PRISM_S_OK, "READ with the right key");
	fill_key(k.key, 3);
	EXPECT_ERR(prism_rekey(k.s, k.kr, k.key, 0, &gen), 0, "REKEY");
	EXPECT_EQ(gen, 2, "generation after one rotation");
	keyed_read(c, &k, PRISM_S_AUTH_FAILED, "READ with the key of the old region key");
	if (give_key(c, &k, k.kr, PRISM_ACCESS_ALL))
		goto out;
	keyed_read(c, &k, PRISM_S_OK, "READ with a key of the new region key");

	/* With an overlap: both keys work until it ends, then the old fails. */
	EXPECT_ERR(prism_derive_key(k.s, k.kr, &c->me.eth, PRISM_ACCESS_ALL, old, NULL),
		   0, "derive the key of generation 2 again");
	fill_key(k.key, 4);
	t0 = now_ms();
	EXPECT_ERR(prism_rekey(k.s, k.kr, k.key, 3000, &gen), 0, "REKEY with a 3 s overlap");
	EXPECT_EQ(gen, 3, "generation after two rotations");
	keyed_read(c, &k, PRISM_S_OK, "READ with the old key during the overlap");
	if (give_key(c, &k, k.kr, PRISM_ACCESS_ALL))
		goto out;
	keyed_read(c, &k, PRISM_S_OK, "READ with the new key during the overlap");
	EXPECT_ERR(prism_attach_key(c->fd, &k.sa.eth, k.kr, PRISM_ACCESS_ALL, old), 0,
		   "attach the old key again");
	if (now_ms() - t0 < 2500)
		keyed_read(c, &k, PRISM_S_OK, "READ with the old key, still in the overlap");
	else
		st_diag("%lld ms of the overlap used: its middle not checked", now_ms() - t0);
	/* Waiting for the rotation's deadline is the point here. */
	left = 3000 + 100 - (now_ms() - t0);
	if (left > 0)
		usleep((useconds_t)left * 1000);
	keyed_read(c, &k, PRISM_S_AUTH_FAILED, "READ with the old key after the overlap");
	if (give_key(c, &k, k.kr, PRISM_ACCESS_ALL))
		goto out;
	keyed_read(c, &k, PRISM_S_OK, "READ with the new key after the overlap");
	memset(old, 0, sizeof(old));

	/* Detached: chains go unsealed again. */
	EXPECT_ERR(prism_detach_key(c->fd, &k.sa.eth, k.kr), 0, "detach");
	EXPECT_ERR(prism_detach_key(c->fd, &k.sa.eth, k.kr), ENOENT, "detach twice");
	keyed_read(c, &k, PRISM_S_NO_ENDPOINT, "READ after the key was detached");
out:
	prism_detach_key(c->fd, &k.sa.eth, k.kr);
	kserver_close(&k);
	return st_failed;
}

/* One chain with a REKEY op of region rkey at k's server. */
static const struct prism_msg *rekey_op(struct client *c, struct kserver *k,
					__u64 rkey, const __u8 *key,
					__u32 overlap_ms)
{
	struct prism_chain_buf ch;

	cl_chain(c, &ch);
	prism_prep_rekey(&ch, rkey, key, overlap_ms);
	return kexec(c, k, &ch);
}

/* The 8-byte little-endian generation REKEY returns. */
static void expect_gen(const struct prism_msg *m, __u64 gen, const char *what)
{
	__u8 le[8];

	prism_put_le64(le, gen);
	cl_expect_op(m, 0, PRISM_S_OK, le, 8, what);
}

int case_keyed_rekey_op(struct client *c)
{
	const __u32 admin = PRISM_ACCESS_ALL | PRISM_KEY_ADMIN;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	__u8 kd[PRISM_KEY_SIZE];
	struct prism_stats s0;
	struct capture cp;
	struct kserver k;
	__u32 gen = 0;
	long long t0;
	ssize_t n;
	int cap;

	cap = capture_in_netns(c->peer_ns);
	if (cap < 0) {
		FAIL("packet socket in %s: %s", c->peer_ns, errno_name(-cap));
		return 1;
	}
	if (kserver_open(c, &k, true))
		goto out;
	fill_key(k.key, 5);

	/* No key attached: the module does not send a key in clear. */
	cl_chain(c, &ch);
	prism_prep_rekey(&ch, k.kr, k.key, 0);
	n = prism_execute(c->fd, &k.sa.eth, &ch, c->out, sizeof(c->out));
	EXPECT_EQ(n, -ENOKEY, "REKEY without a key attached");
	/* A key attached for another region than the one rotated. */
	if (give_key(c, &k, k.ro, PRISM_ACCESS_REMOTE_READ))
		goto out;
	cl_chain(c, &ch);
	prism_prep_read(&ch, k.ro, (__u64)(uintptr_t)k.romem, 8);
	prism_prep_rekey(&ch, k.kr, k.key, 0);
	n = prism_execute(c->fd, &k.sa.eth, &ch, c->out, sizeof(c->out));
	EXPECT_EQ(n, -ENOKEY, "REKEY in a chain sealed for another region");
	prism_detach_key(c->fd, &k.sa.eth, k.ro);

	/* Sealed, but the key lacks the admin right: ACCESS, not rotated. */
	if (give_key(c, &k, k.kr, PRISM_ACCESS_ALL))
		goto out;
	s0 = kstats(k.s);
	m = rekey_op(c, &k, k.kr, k.key, 0);
	expect_status(m, PRISM_S_OK, "REKEY with a key without the admin right");
	cl_expect_op(m, 0, PRISM_S_ACCESS, NULL, 0, "its op");
	EXPECT_EQ(kstats(k.s).rekeys_refused - s0.rekeys_refused, 1, "rekeys_refused");
	EXPECT_EQ(kstats(k.s).rekeys - s0.rekeys, 0, "rekeys");
	keyed_read(c, &k, PRISM_S_OK, "READ after the refused REKEY (same key)");

	/* An admin key: rotated, and no captured frame holds the new key. */
	if (give_key(c, &k, k.kr, admin))
		goto out;
	capture_drain(cap, "", 0, &cp);
	s0 = kstats(k.s);
	m = rekey_op(c, &k, k.kr, k.key, 0);
	expect_status(m, PRISM_S_OK, "REKEY with an admin key");
	expect_gen(m, 2, "REKEY's output: the generation");
	EXPECT_EQ(kstats(k.s).rekeys - s0.rekeys, 1, "rekeys at the target");
	capture_drain(cap, k.key, PRISM_KEY_SIZE, &cp);
	EXPECT(cp.prism >= 2, "the capture saw the REKEY and its answer (%u)", cp.prism);
	EXPECT_EQ(cp.hits, 0, "captured frames holding the new region key");
	keyed_read(c, &k, PRISM_S_AUTH_FAILED, "READ with the admin key of the old region key");
	EXPECT_ERR(prism_derive_key(k.s, k.kr, &c->me.eth, PRISM_ACCESS_ALL, kd, &gen), 0,
		   "the owner derives a key of the new region key");
	EXPECT_EQ(gen, 2, "the generation the owner sees");
	EXPECT_ERR(prism_attach_key(c->fd, &k.sa.eth, k.kr, PRISM_ACCESS_ALL, kd), 0,
		   "attach it");
	keyed_read(c, &k, PRISM_S_OK, "READ with a key of the new region key");
	/*
	 * The region key installed is the one REKEY carried: installed again
	 * locally, it keeps the key derived from it valid.
	 */
	EXPECT_ERR(prism_rekey(k.s, k.kr, k.key, 0, &gen), 0, "the same key again, locally");
	EXPECT_EQ(gen, 3, "generation");
	keyed_read(c, &k, PRISM_S_OK, "READ: the same region key, the same derived key");

	/* With an overlap: the old keys keep working while it lasts. */
	if (give_key(c, &k, k.kr, admin))
		goto out;
	fill_key(k.key, 6);
	t0 = now_ms();
	m = rekey_op(c, &k, k.kr, k.key, 3000);
	expect_status(m, PRISM_S_OK, "REKEY with a 3 s overlap");
	expect_gen(m, 4, "its generation");
	if (now_ms() - t0 < 2500)
		keyed_read(c, &k, PRISM_S_OK, "READ with the old admin key during the overlap");
	else
		st_diag("%lld ms of the overlap used: not checked", now_ms() - t0);

	/* A plain region cannot be rotated; its chain has no key to seal. */
	cl_chain(c, &ch);
	prism_prep_rekey(&ch, k.pr, k.key, 0);
	n = prism_execute(c->fd, &k.sa.eth, &ch, c->out, sizeof(c->out));
	EXPECT_EQ(n, -ENOKEY, "REKEY of a plain region");
out:
	memset(kd, 0, sizeof(kd));
	close(cap);
	prism_detach_key(c->fd, &k.sa.eth, k.kr);
	prism_detach_key(c->fd, &k.sa.eth, k.ro);
	kserver_close(&k);
	return st_failed;
}

/*
 * A thread running sealed READs back to back until told to stop; the
 * completion time of each refused one (the first ROT_FAILS).
 */
#define ROT_N		10	/* rotations */
#define ROT_FAILS	4096
struct rot_reader {
	struct client		*c;
	struct kserver		*k;
	atomic_int		stop;
	unsigned long		ok, auth_failed, other;
	double			fail_us[ROT_FAILS];
	double			rekey_us[ROT_N + 1];	/* [ROT_N]: the end */
	double			window_us[ROT_N];	/* unavailability */
	double			max_window_us;
};

static void *rot_read(void *arg)
{
	struct rot_reader *r = arg;
	_Alignas(8) unsigned char cb[256], out[512];
	const struct prism_msg *m = (const void *)out;
	struct prism_chain_buf ch;
	__u64 ud = 1ULL << 40;

	while (!atomic_load(&r->stop)) {
		prism_chain_init(&ch, cb, sizeof(cb), ud++);
		prism_prep_read(&ch, r->k->kr, (__u64)(uintptr_t)r->k->kmem, 8);
		if (prism_execute(r->c->fd, &r->k->sa.eth, &ch, out, sizeof(out)) < 0)
			r->other++;
		else if (m->status == PRISM_S_OK)
			r->ok++;
		else if (m->status == PRISM_S_AUTH_FAILED) {
			if (r->auth_failed < ROT_FAILS)
				r->fail_us[r->auth_failed] = pu_now_us();
			r->auth_failed++;
		} else
			r->other++;
	}
	return NULL;
}

/*
 * Each rotation's unavailability: from the REKEY call to the completion of
 * the last READ refused before the next rotation (0 if none was); the
 * largest in r->max_window_us.
 */
static void rot_windows(struct rot_reader *r)
{
	unsigned long f, n = r->auth_failed < ROT_FAILS ? r->auth_failed : ROT_FAILS;
	unsigned int i;

	for (i = 0; i < ROT_N; i++) {
		r->window_us[i] = 0;
		for (f = 0; f < n; f++)
			if (r->fail_us[f] >= r->rekey_us[i] &&
			    r->fail_us[f] < r->rekey_us[i + 1] &&
			    r->fail_us[f] - r->rekey_us[i] > r->window_us[i])
				r->window_us[i] = r->fail_us[f] - r->rekey_us[i];
		if (r->window_us[i] > r->max_window_us)
			r->max_window_us = r->window_us[i];
	}
}

/*
 * Rotations under load: every 100 ms the server installs a new region key
 * and, dist_ms later (the time its key distribution takes), the client
 * gets its new key, while another thread reads without pause.  With an
 * overlap no READ fails; without one, those sealed before the client has
 * its new key fail (reported, with each rotation's unavailability).
 */
static void rotate_under_load(struct client *c, struct kserver *k,
			      __u32 overlap_ms, unsigned int dist_ms,
			      struct rot_reader *r)
{
	long long t0 = now_ms(), next;
	pthread_t th;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->c = c;
	r->k = k;
	if (give_key(c, k, k->kr, PRISM_ACCESS_ALL))
		return;
	if (pthread_create(&th, NULL, rot_read, r)) {
		FAIL("pthread_create");
		return;
	}
	for (i = 0; i < ROT_N; i++) {
		next = t0 + 100 * (i + 1);
		while (now_ms() < next)
			usleep(1000);	/* the rotation period is the point */
		fill_key(k->key, 100 + i + overlap_ms + dist_ms);
		r->rekey_us[i] = pu_now_us();
		EXPECT_ERR(prism_rekey(k->s, k->kr, k->key, overlap_ms, NULL), 0, "REKEY");
		if (dist_ms)
			usleep(dist_ms * 1000);	/* the key distribution's delay */
		give_key(c, k, k->kr, PRISM_ACCESS_ALL);
	}
	usleep(50000);		/* reads after the last rotation */
	atomic_store(&r->stop, 1);
	pthread_join(th, NULL);
	r->rekey_us[ROT_N] = pu_now_us();
	rot_windows(r);
	st_diag("overlap %u ms, key %u ms after REKEY: %lu READs OK, %lu AUTH_FAILED, %lu other over %lld ms; unavailability per rotation (us): max %.0f, %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f",
		overlap_ms, dist_ms, r->ok, r->auth_failed, r->other,
		now_ms() - t0, r->max_window_us, r->window_us[0], r->window_us[1],
		r->window_us[2], r->window_us[3], r->window_us[4],
		r->window_us[5], r->window_us[6], r->window_us[7],
		r->window_us[8], r->window_us[9]);
}

int case_keyed_rotation(struct client *c)
{
	struct rot_reader r;
	struct kserver k;

	if (kserver_open(c, &k, true))
		goto out;
	rotate_under_load(c, &k, 300, 5, &r);
	EXPECT(r.ok >= 10, "READs completed during rotations with an overlap (%lu)", r.ok);
	EXPECT_EQ(r.auth_failed, 0, "READs refused during rotations with an overlap");
	EXPECT_EQ(r.other, 0, "READs failing otherwise, with an overlap");
	rotate_under_load(c, &k, 0, 5, &r);
	EXPECT(r.ok >= 10, "READs completed during rotations without an overlap (%lu)", r.ok);
	EXPECT_EQ(r.other, 0, "READs failing otherwise, without an overlap");
	/*
	 * Without an overlap and with the new key attached right after REKEY:
	 * the unavailability is the REKEY, derive and attach calls plus the
	 * READs already in flight (the figure of doc/SECURITY.md).  Every
	 * rotation must end within its 100 ms period: a rotation that strands
	 * the client fails until the next one (the debug kernel runs about 30
	 * chains a second, hence the margin).
	 */
	rotate_under_load(c, &k, 0, 0, &r);
	EXPECT(r.ok >= 10, "READs completed during rotations, key at once (%lu)", r.ok);
	EXPECT_EQ(r.other, 0, "READs failing otherwise, key at once");
	EXPECT(r.max_window_us < 90000,
	       "every rotation's unavailability, key at once, under 90 ms (max %.0f us)",
	       r.max_window_us);
out:
	prism_detach_key(c->fd, &k.sa.eth, k.kr);
	kserver_close(&k);
	return st_failed;
}
