// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: congestion control.  A silent target gets its first
 * window of chains (16) and the rest wait in the kernel; they all complete
 * with TIMEOUT at their deadline, its timeouts cut its window, and the live
 * server keeps answering at once meanwhile; the same with chain timers on
 * hrtimers (rto_hrtimer).  With the module parameter cc off (the
 * default), nothing waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"

#define CC_PARAM	"/sys/module/prism/parameters/cc"
#define HRT_PARAM	"/sys/module/prism/parameters/rto_hrtimer"
#define CC_INIT_CHAINS	16	/* PRISM_CC_INIT, kmod/cc.h */
#define SILENT_N	40
#define LIVE_N		20

static int set_param(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static void silent_burst(struct client *c, int cc_on)
{
	_Alignas(8) unsigned char buf[256];
	const struct prism_msg *m = (const void *)buf;
	struct sockaddr_prism silent = c->dst.eth;
	struct prism_stats st0, st1;
	struct prism_chain_buf ch;
	int fd, i, ok = 0, timed_out = 0;
	__u64 live_ud;
	ssize_t n;

	prism_parse_mac("02:00:00:00:99:94", silent.sprism_mac);
	fd = prism_open(c->ifname, 0, 0);
	if (fd < 0) {
		FAIL("prism_open: %s", errno_name(-fd));
		return;
	}
	prism_get_stats(fd, &st0);
	for (i = 0; i < SILENT_N; i++) {
		cl_chain(c, &ch);
		prism_chain_set_timeout(&ch, 1500);
		prism_prep_read(&ch, 1, 0, 8);
		if (prism_submit(fd, &silent, &ch))
			break;
	}
	EXPECT_EQ(i, SILENT_N, "chains submitted to a silent MAC");
	/* The live server answers at once: nothing of the above is in its way. */
	for (i = 0; i < LIVE_N; i++) {
		cl_chain(c, &ch);
		live_ud = c->next_ud;
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
		if (prism_submit(fd, &c->dst.eth, &ch))
			break;
		n = prism_wait(fd, buf, sizeof(buf));
		if (n < 0 || m->user_data != live_ud)
			break;
		ok += m->status == PRISM_S_OK;
	}
	EXPECT_EQ(ok, LIVE_N, "chains to the live server answered first, OK");
	for (i = 0; i < SILENT_N; i++) {
		n = prism_wait(fd, buf, sizeof(buf));
		if (n < 0)
			break;
		timed_out += m->status == PRISM_S_TIMEOUT;
	}
	EXPECT_EQ(timed_out, SILENT_N, "chains to the silent MAC timed out");
	prism_get_stats(fd, &st1);
	EXPECT_EQ(st1.cc_held - st0.cc_held,
		  cc_on ? SILENT_N - CC_INIT_CHAINS : 0,
		  "chains held for the silent target's window");
	if (cc_on)
		EXPECT(st1.cc_cuts_rto > st0.cc_cuts_rto,
		       "its timeouts cut its window (cc_cuts_rto %llu)",
		       (unsigned long long)(st1.cc_cuts_rto - st0.cc_cuts_rto));
	else
		EXPECT_EQ(st1.cc_cuts_rto - st0.cc_cuts_rto, 0,
			  "no window cut with cc off");
	EXPECT_EQ(st1.chains_timed_out - st0.chains_timed_out, SILENT_N,
		  "chains_timed_out");
	close(fd);
}

int case_cc_silent(struct client *c)
{
	int err;

	err = set_param(CC_PARAM, "1");
	EXPECT_ERR(err, 0, "cc=1 through " CC_PARAM);
	if (err)
		return st_failed;
	silent_burst(c, 1);
	/* The same with chain timers on hrtimers. */
	err = set_param(HRT_PARAM, "1");
	EXPECT_ERR(err, 0, "rto_hrtimer=1 through " HRT_PARAM);
	if (!err)
		silent_burst(c, 1);
	EXPECT_ERR(set_param(HRT_PARAM, "0"), 0, "rto_hrtimer=0 again");
	err = set_param(CC_PARAM, "0");
	EXPECT_ERR(err, 0, "cc=0 through " CC_PARAM);
	if (!err)
		silent_burst(c, 0);
	/* Back to the default. */
	EXPECT_ERR(set_param(CC_PARAM, "0"), 0, "cc=0 again");
	return st_failed;
}
