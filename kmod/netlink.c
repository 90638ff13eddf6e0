// SPDX-License-Identifier: GPL-2.0
/* Generic netlink interface for prismctl (placeholder until written). */
#include "prism_net.h"

int prism_netlink_init(void)
{
	return 0;
}

void prism_netlink_exit(void)
{
}
