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

static __u64 region(int fd, long page)
{
	struct prism_reg_mr mr = { .len = (__u64)page,
				   .access = PRISM_ACCESS_ALL };
	void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	mr.addr = (__u64)(unsigned long)p;
	if (ioctl(fd, PRISM_IOC_REG_MR, &mr))
		die("PRISM_IOC_REG_MR");
	return mr.rkey;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	int nsocks, nregions, nfls, family, i, j, fd;
	struct sockaddr_prism sa;
	socklen_t len;
	FILE *f;
	__u64 rkey;

	if (argc != 5) {
		fprintf(stderr, "usage: mkeps IFNAME NSOCKS NREGIONS NFREELISTS\n");
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
