// SPDX-License-Identifier: GPL-2.0
/*
 * bind() a PRISM socket to IFNAME and endpoint EP (0: ephemeral).
 * Prints "bind=OK ep=0x.." or "bind=<errno name>".
 *
 * Usage: hz_bind IFNAME EP
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <sys/socket.h>

#include "hz.h"

int main(int argc, char **argv)
{
	struct sockaddr_prism sa, me;
	int fd, ifindex;

	if (argc < 3) {
		fprintf(stderr, "usage: %s IFNAME EP\n", argv[0]);
		return 2;
	}
	ifindex = (int)if_nametoindex(argv[1]);
	if (!ifindex) {
		printf("bind=no_such_device\n");
		return 1;
	}
	fd = socket(prism_family(), SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		printf("socket=%s\n", hz_err(-errno));
		return 1;
	}
	prism_addr_init(&sa, NULL, (uint32_t)strtoul(argv[2], NULL, 0));
	sa.sprism_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("bind=%s\n", hz_err(-errno));
		return 0;
	}
	if (prism_local_addr(fd, &me))
		me.sprism_ep = 0;
	printf("bind=OK ep=0x%x\n", me.sprism_ep);
	return 0;
}
