// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl stats [show]: the counters of the network namespace (and,
 * with -s, of each endpoint).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <libmnl/libmnl.h>
#include <linux/prism.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

/* The names of PRISM_STATS_LIST, as in /proc/net/prism. */
#define STAT_NAME(ID, name)	#name,
const char *const stat_names[] = {
	PRISM_STATS_LIST(STAT_NAME)
};
#undef STAT_NAME

/* One name per counter attribute (they start after UNSPEC and PAD). */
_Static_assert(sizeof(stat_names) / sizeof(stat_names[0]) == NR_STATS,
	       "stat_names must follow enum prism_stats_attr");

/* Counters, then the pinned pages gauge (UINT64_MAX if not reported). */
static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	uint64_t *c = data;
	attrs_t tb;

	if (parse_reply(nlh, tb))
		return -1;
	if (!tb[PRISM_ATTR_STATS]) {
		fprintf(stderr, "prismctl: %s: reply without counters\n", what);
		return -1;
	}
	c[NR_STATS] = tb[PRISM_ATTR_PINNED_PAGES] ?
		      get_u64(tb, PRISM_ATTR_PINNED_PAGES) : UINT64_MAX;
	return parse_counters(tb[PRISM_ATTR_STATS], c, NR_STATS);
}

static int put_stats_ep(attrs_t tb)
{
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	if (tb[PRISM_ATTR_IFNAME])
		out_str("dev", "dev", mnl_attr_get_str(tb[PRISM_ATTR_IFNAME]));
	if (tb[PRISM_ATTR_STATS] &&
	    put_counters("stats", tb[PRISM_ATTR_STATS], stat_names, NR_STATS))
		return -1;
	return 0;
}

static int do_stats(int argc, char **argv)
{
	uint64_t c[NR_STATS + 1];
	struct nlmsghdr *nlh;
	struct nl_err e;
	int err, i;

	if (argc)
		return usage_error("%s: unknown argument '%s'", what, argv[0]);
	if (nl_open())
		return 1;
	nlh = nl_req(PRISM_CMD_STATS_GET, 0);
	err = nl_talk(nlh, stats_cb, c, &e);
	if (err)
		return report(nlh, err, &e);

	/* Text: "name value" lines, as in /proc/net/prism. */
	if (out_json())
		out_obj_begin(NULL);
	for (i = 0; i < NR_STATS; i++) {
		out_u64(stat_names[i], NULL, c[i]);
		out_text("%s %" PRIu64 "\n", stat_names[i], c[i]);
	}
	if (c[NR_STATS] != UINT64_MAX) {
		out_u64("pinned_pages", NULL, c[NR_STATS]);
		out_text("pinned_pages %" PRIu64 "\n", c[NR_STATS]);
	}
	if (opt.stats) {
		nlh = nl_req(PRISM_CMD_ENDPOINT_GET, NLM_F_DUMP);
		err = show_reply("endpoints", nlh, put_stats_ep);
		if (err)
			return err;
	}
	if (out_json())
		out_obj_end();
	return 0;
}

const struct cmd stats_cmds[] = {
	{ "show", do_stats }, { NULL, NULL },
};
