// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: region and free list ioctls (REG_MR, DEREG_MR, FL_*):
 * their errors, and ops on a region deregistered at the target.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cases.h"

/*
 * Free lists above 65536 buffers: only as many as the region holds at 16
 * bytes each, and all such lists' rings (16 B per buffer) within the
 * memory the socket pinned: here one 4 MiB region.
 */
static void big_lists(struct client *c, int fd)
{
	const size_t len = 4u << 20;
	unsigned char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__u64 rkey = 0, *addrs;
	__u32 a = 0, b = 0, i;

	(void)c;
	addrs = calloc(70001, sizeof(*addrs));
	if (mem == MAP_FAILED || !addrs) {
		FAIL("4 MiB for the big lists");
		return;
	}
	EXPECT_ERR(prism_reg_mr(fd, mem, len, PRISM_ACCESS_ALL, &rkey), 0, "REG_MR of 4 MiB");
	EXPECT_ERR(prism_fl_create(fd, rkey, 64, 65537, &a), EINVAL,
		   "FL_CREATE of 65537 64-byte buffers in 4 MiB (65536 fit)");
	EXPECT_ERR(prism_fl_create(fd, rkey, 16, 262145, &a), EINVAL,
		   "FL_CREATE of one 16-byte buffer more than 4 MiB holds");
	EXPECT_ERR(prism_fl_create(fd, rkey, 16, 200000, &a), 0,
		   "FL_CREATE of 200000 buffers (3.2 MB of ring, 4 MiB pinned)");
	EXPECT_ERR(prism_fl_create(fd, rkey, 16, 100000, &b), ENOMEM,
		   "FL_CREATE of 100000 more: the rings would outgrow the pinned memory");
	EXPECT_ERR(prism_fl_create(fd, rkey, 16, 65536, &b), 0,
		   "FL_CREATE of 65536 (small lists do not count)");
	EXPECT_ERR(prism_fl_destroy(fd, b), 0, "FL_DESTROY of the small list");
	for (i = 0; i < 70001; i++)
		addrs[i] = (__u64)(uintptr_t)mem + 16ull * i;
	EXPECT_ERR(prism_fl_post(fd, a, addrs, 65536), 0, "FL_POST of 65536 buffers");
	EXPECT_ERR(prism_fl_post(fd, a, addrs + 65536, 4464), 0,
		   "FL_POST of 4464 more: a list holds 70000");
	EXPECT_ERR(prism_fl_destroy(fd, a), 0, "FL_DESTROY of the big list");
	EXPECT_ERR(prism_fl_create(fd, rkey, 16, 100000, &b), 0,
		   "FL_CREATE of 100000 once the big list is gone");
	EXPECT_ERR(prism_fl_destroy(fd, b), 0, "FL_DESTROY");
	EXPECT_ERR(prism_dereg_mr(fd, rkey), 0, "DEREG_MR of the 4 MiB region");
	free(addrs);
	munmap(mem, len);
}

int case_errno_ioctl(struct client *c)
{
	int fd = prism_open(c->ifname, 0, 0);
	struct prism_reg_mr mr;
	unsigned char *mem, *gone;
	__u64 rkey = 0, addrs[4];
	__u32 id = 0, id2;
	int err;

	if (fd < 0) {
		FAIL("prism_open: %s", errno_name(-fd));
		return 1;
	}
	mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 4096);

	EXPECT_ERR(prism_reg_mr(fd, mem, 0, PRISM_ACCESS_ALL, &rkey), EINVAL, "REG_MR of 0 bytes");
	EXPECT_ERR(prism_reg_mr(fd, mem, 4096, 0, &rkey), EINVAL, "REG_MR without access");
	EXPECT_ERR(prism_reg_mr(fd, mem, 4096, PRISM_ACCESS_ALL + 1, &rkey), EINVAL,
		   "REG_MR with an unknown access bit");
	memset(&mr, 0, sizeof(mr));
	mr.addr = (__u64)(uintptr_t)mem;
	mr.len = 4096;
	mr.access = PRISM_ACCESS_ALL;
	mr.flags = PRISM_MR_KEYED << 1;
	EXPECT_ERR(ioctl(fd, PRISM_IOC_REG_MR, &mr) ? -errno : 0, EINVAL,
		   "REG_MR with an unknown flag");
	EXPECT_ERR(prism_reg_mr(fd, gone, 4096, PRISM_ACCESS_ALL, &rkey), EFAULT,
		   "REG_MR of unmapped memory");
	EXPECT_ERR(prism_reg_mr(fd, (void *)(uintptr_t)0xffff800000000000ULL, 4096,
				PRISM_ACCESS_ALL, &rkey), EFAULT, "REG_MR of a kernel address");
	EXPECT_ERR(ioctl(fd, PRISM_IOC_REG_MR, (void *)16) ? -errno : 0, EFAULT,
		   "REG_MR with a bad argument pointer");

	err = prism_reg_mr(fd, mem, 8192, PRISM_ACCESS_ALL, &rkey);
	EXPECT_ERR(err, 0, "REG_MR");
	EXPECT(rkey != 0, "rkey is nonzero");
	{
		__u64 rk2 = 0;

		EXPECT_ERR(prism_reg_mr(fd, mem, 4096, PRISM_ACCESS_REMOTE_READ, &rk2), 0,
			   "REG_MR of overlapping memory");
		EXPECT(rk2 && rk2 != rkey, "a distinct rkey per region");
		EXPECT_ERR(prism_dereg_mr(fd, rk2), 0, "DEREG_MR");
		EXPECT_ERR(prism_dereg_mr(fd, rk2), ENOENT, "DEREG_MR twice");
	}
	EXPECT_ERR(prism_dereg_mr(fd, rkey ^ 0x5a5a), ENOENT, "DEREG_MR of an unknown rkey");

	EXPECT_ERR(prism_fl_create(fd, rkey ^ 0x5a5a, 64, 4, &id), ENOENT,
		   "FL_CREATE on an unknown rkey");
	EXPECT_ERR(prism_fl_create(fd, rkey, 0, 4, &id), EINVAL, "FL_CREATE with buf_size 0");
	EXPECT_ERR(prism_fl_create(fd, rkey, 64, 0, &id), EINVAL, "FL_CREATE with capacity 0");
	EXPECT_ERR(prism_fl_create(fd, rkey, 8193, 4, &id), EINVAL,
		   "FL_CREATE with buffers larger than the region");
	EXPECT_ERR(prism_fl_create(fd, rkey, 64, 2, &id), 0, "FL_CREATE");
	EXPECT_ERR(prism_fl_create(fd, rkey, 64, 2, &id2), 0, "second FL_CREATE");
	EXPECT(id != id2, "free list ids differ");
	addrs[0] = (__u64)(uintptr_t)mem;
	addrs[1] = (__u64)(uintptr_t)mem + 64;
	addrs[2] = (__u64)(uintptr_t)mem + 128;
	EXPECT_ERR(prism_fl_post(fd, id ^ 0x77, addrs, 1), ENOENT, "FL_POST to an unknown list");
	EXPECT_ERR(prism_fl_post(fd, id, addrs, 0), EINVAL, "FL_POST of 0 buffers");
	addrs[3] = (__u64)(uintptr_t)mem + 8192 - 32;
	EXPECT_ERR(prism_fl_post(fd, id, addrs + 3, 1), EINVAL,
		   "FL_POST of a buffer crossing the region end");
	addrs[3] = (__u64)(uintptr_t)gone;
	EXPECT_ERR(prism_fl_post(fd, id, addrs + 3, 1), EINVAL,
		   "FL_POST of a buffer outside the region");
	EXPECT_ERR(prism_fl_post(fd, id, addrs, 3), ENOSPC, "FL_POST beyond capacity");
	EXPECT_ERR(prism_fl_post(fd, id, addrs, 2), 0, "FL_POST");
	EXPECT_ERR(prism_fl_post(fd, id, addrs + 2, 1), ENOSPC, "FL_POST to a full list");
	{
		struct prism_fl_post fp = { .id = id, .count = 1, .addrs = 16 };

		EXPECT_ERR(ioctl(fd, PRISM_IOC_FL_POST, &fp) ? -errno : 0, EFAULT,
			   "FL_POST with a bad address array pointer");
	}
	EXPECT_ERR(prism_dereg_mr(fd, rkey), EBUSY, "DEREG_MR of a region with free lists");
	EXPECT_ERR(prism_fl_destroy(fd, id), 0, "FL_DESTROY");
	EXPECT_ERR(prism_fl_destroy(fd, id), ENOENT, "FL_DESTROY twice");
	EXPECT_ERR(prism_fl_destroy(fd, 0x7fffffff), ENOENT, "FL_DESTROY of an unknown list");
	EXPECT_ERR(prism_fl_destroy(fd, id2), 0, "FL_DESTROY");
	EXPECT_ERR(prism_dereg_mr(fd, rkey), 0, "DEREG_MR after its lists are gone");
	EXPECT_ERR(ioctl(fd, _IO(PRISM_IOC_MAGIC, 99), 0) ? -errno : 0, ENOTTY,
		   "unknown ioctl");
	big_lists(c, fd);
	close(fd);
	munmap(mem, 8192);
	return st_failed;
}

/* A region deregistered at the target: later ops fail with AUTH. */
int case_dereg_auth(struct client *c)
{
	struct sockaddr_prism sa;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_stats st0, st1;
	unsigned char *mem;
	__u64 rkey = 0;
	int s;

	if (!c->peer_ns || !c->peer_if) {
		FAIL("needs --peer-ns and --peer-if");
		return 1;
	}
	s = open_in_netns(c->peer_ns, c->peer_if, 0);
	if (s < 0) {
		FAIL("socket in %s: %s", c->peer_ns, errno_name(-s));
		return 1;
	}
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(mem, "private region", 15);
	EXPECT_ERR(prism_reg_mr(s, mem, 4096, PRISM_ACCESS_REMOTE_READ, &rkey), 0, "REG_MR");
	prism_local_addr(s, &sa);
	prism_addr_init(&sa, sa.sprism_mac, sa.sprism_ep);
	prism_get_stats(s, &st0);

	cl_chain(c, &ch);
	prism_prep_read(&ch, rkey, (__u64)(uintptr_t)mem, 15);
	if (prism_execute(c->fd, &sa, &ch, c->out, sizeof(c->out)) < 0)
		FAIL("READ before DEREG failed");
	m = cl_msg(c);
	cl_expect_op(m, 0, PRISM_S_OK, "private region", 15, "READ before DEREG");

	EXPECT_ERR(prism_dereg_mr(s, rkey), 0, "DEREG_MR");
	cl_chain(c, &ch);
	prism_prep_read(&ch, rkey, (__u64)(uintptr_t)mem, 15);
	if (prism_execute(c->fd, &sa, &ch, c->out, sizeof(c->out)) < 0)
		FAIL("READ after DEREG failed");
	/* Its only rkey is gone: refused like a chain to nobody, not run. */
	EXPECT_EQ(m->status, PRISM_S_NO_ENDPOINT, "READ after DEREG: chain status");
	prism_get_stats(s, &st1);
	EXPECT_EQ(st1.chains_served - st0.chains_served, 1, "chains_served at the target");
	EXPECT_EQ(st1.ops_served - st0.ops_served, 1, "ops_served at the target");
	EXPECT_EQ(st1.ops_failed - st0.ops_failed, 0, "ops_failed at the target");
	EXPECT_EQ(st1.unauth_refused - st0.unauth_refused, 1, "unauth_refused at the target");
	close(s);
	return st_failed;
}
