// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl monitor [all|endpoint|region|freelist]: print the module's
 * events, one line (JSON: one object) each, until SIGINT or SIGTERM.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

enum {
	MON_ENDPOINT	= 1 << 0,
	MON_REGION	= 1 << 1,
	MON_FREELIST	= 1 << 2,
	MON_ALL		= MON_ENDPOINT | MON_REGION | MON_FREELIST,
};

static volatile sig_atomic_t mon_stop;

static void mon_signal(int sig)
{
	(void)sig;
	mon_stop = 1;
}

static int mon_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	unsigned int which = *(unsigned int *)data;
	const char *obj, *ev;
	unsigned int kind;
	attrs_t tb;

	switch (g->cmd) {
	case PRISM_CMD_ENDPOINT_NEW:
	case PRISM_CMD_ENDPOINT_DEL:
		kind = MON_ENDPOINT;
		obj = "endpoint";
		break;
	case PRISM_CMD_REGION_NEW:
	case PRISM_CMD_REGION_DEL:
		kind = MON_REGION;
		obj = "region";
		break;
	case PRISM_CMD_FREELIST_NEW:
	case PRISM_CMD_FREELIST_DEL:
		kind = MON_FREELIST;
		obj = "freelist";
		break;
	default:
		return 0;	/* events of newer modules */
	}
	if (!(which & kind))
		return 0;
	ev = (g->cmd == PRISM_CMD_ENDPOINT_NEW ||
	      g->cmd == PRISM_CMD_REGION_NEW ||
	      g->cmd == PRISM_CMD_FREELIST_NEW) ? "new" : "del";
	if (parse_reply(nlh, tb))
		return -1;

	out_obj_begin(NULL);
	out_str("object", NULL, obj);
	out_tpair("", "[%s]", obj);
	out_str("event", "", ev);
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	switch (kind) {
	case MON_ENDPOINT:
		out_u64("ifindex", tb[PRISM_ATTR_IFNAME] ? NULL : "ifindex",
			get_u32(tb, PRISM_ATTR_IFINDEX));
		if (tb[PRISM_ATTR_IFNAME])
			out_str("dev", "dev",
				mnl_attr_get_str(tb[PRISM_ATTR_IFNAME]));
		break;
	case MON_REGION:
		out_u64("len", "len", get_u64(tb, PRISM_ATTR_REGION_LEN));
		put_access((uint32_t)get_u32(tb, PRISM_ATTR_REGION_ACCESS));
		out_u64("pages", "pages", get_u64(tb, PRISM_ATTR_REGION_PAGES));
		break;
	default:
		out_u64("id", "id", get_u32(tb, PRISM_ATTR_FL_ID));
		out_u64("buf_size", "size", get_u32(tb, PRISM_ATTR_FL_BUF_SIZE));
		out_u64("capacity", "capacity",
			get_u32(tb, PRISM_ATTR_FL_CAPACITY));
		break;
	}
	out_obj_end();
	/* Each event as it comes. */
	if (out_flush())
		return -1;
	out_init(opt.json, opt.pretty);
	return 0;
}

static int monitor(int argc, char **argv, unsigned int which,
		   const char *name)
{
	struct sigaction sa = { .sa_handler = mon_signal };
	sigset_t block, waitmask;

	if (argc)
		return usage_error("%s: unknown argument '%s'", what, argv[0]);
	/* Blocked but while waiting: no signal is missed between checks. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (nl_open() || nl_join_events())
		return 1;
	/* Subscribed: from here on no event is missed. */
	fprintf(stderr, "monitoring %s events\n", name);
	return nl_listen(mon_cb, &which, &waitmask, &mon_stop) ? 1 : 0;
}

static int mon_all(int argc, char **argv)
{
	return monitor(argc, argv, MON_ALL, "endpoint, region and freelist");
}

static int mon_endpoint(int argc, char **argv)
{
	return monitor(argc, argv, MON_ENDPOINT, "endpoint");
}

static int mon_region(int argc, char **argv)
{
	return monitor(argc, argv, MON_REGION, "region");
}

static int mon_freelist(int argc, char **argv)
{
	return monitor(argc, argv, MON_FREELIST, "freelist");
}

const struct cmd monitor_cmds[] = {
	{ "all", mon_all }, { "endpoint", mon_endpoint },
	{ "region", mon_region }, { "freelist", mon_freelist },
	{ NULL, NULL },
};
