// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: accounting: the server sleeping in pause() uses no CPU
 * while it serves chains; PRISM_STATS and /proc/net/prism.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"

/* The server's CPU time does not grow while it serves many chains. */
int case_cpu_idle(struct client *c)
{
	const __u64 off = T_AREA + 0x1c00;
	long long cpu0, cpu1, cs0, cs1, t0;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned char b[8];
	int i, n = 400;

	setup_u64(c, off, 0);
	cpu0 = proc_cpu_ticks(c->s.pid);
	cs0 = proc_ctxt_switches(c->s.pid);
	if (cpu0 < 0 || cs0 < 0) {
		FAIL("cannot read /proc/%d/stat or status", (int)c->s.pid);
		return 1;
	}
	t0 = now_ms();
	for (i = 0; i < n; i++) {
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, (__u64)i * 8), 64);
		prism_prep_cas_u64(&ch, c->s.rw_rkey, rw(c, off), PRISM_CAS_EQ,
				   (__u64)i, (__u64)i + 1);
		prism_put_le64(b, (__u64)i);
		prism_prep_write(&ch, c->s.rw_rkey, rw(c, off + 8), b, 8);
		m = cl_exec(c, &ch, true);
		if (!m || prism_msg_op_status(m, 1) != PRISM_S_OK) {
			FAIL("chain %d failed", i);
			break;
		}
	}
	cpu1 = proc_cpu_ticks(c->s.pid);
	cs1 = proc_ctxt_switches(c->s.pid);
	st_diag("%d chains (%d ops) in %lld ms; server cpu %lld -> %lld ticks, context switches %lld -> %lld",
		i, 3 * i, now_ms() - t0, cpu0, cpu1, cs0, cs1);
	EXPECT_EQ(mem_u64(c, rw(c, off)), (__u64)n, "counter after the CAS chains");
	EXPECT(cpu1 - cpu0 <= 1, "server CPU time grew by %lld ticks", cpu1 - cpu0);
	EXPECT_EQ(cs1 - cs0, 0, "server context switches (it never woke up)");
	return st_failed;
}

static int proc_counter(const char *name, long long *v)
{
	char key[64];
	long long x;
	FILE *f = fopen("/proc/net/prism", "r");
	int found = -1;

	if (!f)
		return -errno;
	while (fscanf(f, "%63s %lld", key, &x) == 2)
		if (!strcmp(key, name)) {
			*v = x;
			found = 0;
		}
	fclose(f);
	return found;
}

int case_stats(struct client *c)
{
	struct prism_stats st0, st1;
	struct prism_chain_buf ch;
	long long p0 = 0, p1 = 0;
	int i;

	EXPECT_ERR(prism_get_stats(c->fd, &st0), 0, "PRISM_STATS");
	EXPECT_ERR(proc_counter("chains_sent", &p0), 0, "chains_sent in /proc/net/prism");
	for (i = 0; i < 5; i++) {
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
		prism_prep_read(&ch, c->s.rw_rkey + 1, rw(c, 0), 8);
		cl_exec(c, &ch, true);
	}
	prism_get_stats(c->fd, &st1);
	proc_counter("chains_sent", &p1);
	EXPECT_EQ(st1.chains_sent - st0.chains_sent, 5, "chains_sent");
	EXPECT_EQ(st1.chains_completed - st0.chains_completed, 5, "chains_completed");
	EXPECT_EQ(st1.chains_timed_out - st0.chains_timed_out, 0, "chains_timed_out");
	EXPECT_EQ(p1 - p0, 5, "netns chains_sent");
	{
		static const char *const names[] = {
			"chains_sent", "chains_completed", "chains_timed_out",
			"chains_served", "ops_served", "ops_failed",
			"sends_received", "rx_dropped",
		};
		long long v;
		unsigned int k;

		for (k = 0; k < 8; k++)
			EXPECT(proc_counter(names[k], &v) == 0,
			       "/proc/net/prism has %s", names[k]);
	}
	return st_failed;
}
