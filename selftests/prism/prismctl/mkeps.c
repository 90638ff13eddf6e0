// SPDX-License-Identifier: GPL-2.0
/*
 * mkeps: open many PRISM endpoints so that prismctl's dumps span several
 * netlink messages (test helper of test_prismctl.sh).
 *
 * Usage: mkeps IFNAME NSOCKS NREGIONS NFREELISTS
 *
 * Binds NSOCKS sockets to IFNAME (endpoint ids picked by the module) and
 * registers a one-page region on each.  The first socket also gets
 * NREGIONS - 1 more one-page regions and NFREELISTS free lists (capacity
 * 1, 64-byte buffers) in its first region.  Prints
 *	ready eps=EP,EP,...
 * and sleeps until killed.
 *
 *       mkeps --events IFNAME EP
 *
 * The changes prismctl monitor reports, in this order: bind one socket to
 * endpoint EP, register a one-page read/write region, create a free list
 * in it (64-byte buffers, capacity 8), destroy the list, deregister the
 * region, register a two-page region with all access.  Prints
 *	ready rkey=0x... addr=0x... rkey1=0x... addr1=0x...
 * (the kept region, then the first one) and sleeps until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/socket.h>	/* uapi prism.h needs __kernel_sa_family_t */
#include <linux/prism.h>

static void die(const char *what)
{
	fprintf(stderr, "mkeps: %s: %s\n", what, strerror(errno));
	exit(1);
}

static __u64 region_at(int fd, long len, __u32 access, __u64 *addr)
{
	struct prism_reg_mr mr = { .len = (__u64)len, .access = access };
	void *p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	mr.addr = (__u64)(unsigned long)p;
	if (ioctl(fd, PRISM_IOC_REG_MR, &mr))
		die("PRISM_IOC_REG_MR");
	if (addr)
		*addr = mr.addr;
	return mr.rkey;
}

static __u64 region(int fd, long page)
{
	return region_at(fd, page, PRISM_ACCESS_ALL, NULL);
}

static int open_bound(int family, const char *ifname, __u32 ep)
{
	struct sockaddr_prism sa;
	int fd;

	fd = socket(family, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	memset(&sa, 0, sizeof(sa));
	sa.sprism_family = (unsigned short)family;
	sa.sprism_ifindex = (int)if_nametoindex(ifname);
	sa.sprism_ep = ep;
	if (!sa.sprism_ifindex)
		die(ifname);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind");
	return fd;
}

/* --events: the changes test_prismctl.sh's monitor tests expect. */
static __attribute__((noreturn)) void events(int family, const char *ifname,
					    __u32 ep, long page)
{
	struct prism_fl_create fc = { .buf_size = 64, .capacity = 8 };
	__u64 rkey1, addr1, rkey, addr;
	int fd = open_bound(family, ifname, ep);

	rkey1 = region_at(fd, page,
			  PRISM_ACCESS_REMOTE_READ | PRISM_ACCESS_REMOTE_WRITE,
			  &addr1);
	fc.rkey = rkey1;
	if (ioctl(fd, PRISM_IOC_FL_CREATE, &fc))
		die("PRISM_IOC_FL_CREATE");
	if (ioctl(fd, PRISM_IOC_FL_DESTROY, &fc.id))
		die("PRISM_IOC_FL_DESTROY");
	if (ioctl(fd, PRISM_IOC_DEREG_MR, &rkey1))
		die("PRISM_IOC_DEREG_MR");
	rkey = region_at(fd, 2 * page, PRISM_ACCESS_ALL, &addr);
	printf("ready rkey=0x%llx addr=0x%llx rkey1=0x%llx addr1=0x%llx\n",
	       (unsigned long long)rkey, (unsigned long long)addr,
	       (unsigned long long)rkey1, (unsigned long long)addr1);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	int nsocks, nregions, nfls, family, i, j, fd;
	struct sockaddr_prism sa;
	socklen_t len;
	FILE *f;
	__u64 rkey;

	if (argc == 4 && !strcmp(argv[1], "--events")) {
		f = fopen("/sys/module/prism/parameters/family", "r");
		if (!f || fscanf(f, "%d", &family) != 1)
			die("/sys/module/prism/parameters/family");
		fclose(f);
		events(family, argv[2], (__u32)atoi(argv[3]), page);
	}
	if (argc != 5) {
		fprintf(stderr, "usage: mkeps IFNAME NSOCKS NREGIONS NFREELISTS\n"
				"       mkeps --events IFNAME EP\n");
		return 2;
	}
	nsocks = atoi(argv[2]);
	nregions = atoi(argv[3]);
	nfls = atoi(argv[4]);
	f = fopen("/sys/module/prism/parameters/family", "r");
	if (!f || fscanf(f, "%d", &family) != 1)
		die("/sys/module/prism/parameters/family");
	fclose(f);

	printf("ready eps=");
	for (i = 0; i < nsocks; i++) {
		fd = socket(family, SOCK_DGRAM, 0);
		if (fd < 0)
			die("socket");
		memset(&sa, 0, sizeof(sa));
		sa.sprism_family = (unsigned short)family;
		sa.sprism_ifindex = (int)if_nametoindex(argv[1]);
		if (!sa.sprism_ifindex)
			die(argv[1]);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			die("bind");
		len = sizeof(sa);
		if (getsockname(fd, (struct sockaddr *)&sa, &len))
			die("getsockname");
		printf("%s%u", i ? "," : "", sa.sprism_ep);
		rkey = region(fd, page);
		if (i)
			continue;
		for (j = 1; j < nregions; j++)
			region(fd, page);
		for (j = 0; j < nfls; j++) {
			struct prism_fl_create fc = {
				.rkey = rkey, .buf_size = 64, .capacity = 1,
			};

			if (ioctl(fd, PRISM_IOC_FL_CREATE, &fc))
				die("PRISM_IOC_FL_CREATE");
		}
	}
	printf("\n");
	fflush(stdout);
	for (;;)
		pause();
}
