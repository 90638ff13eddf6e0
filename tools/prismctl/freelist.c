// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl freelist show|create|post: the free lists of endpoints.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

static int put_freelist(attrs_t tb)
{
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	out_u64("id", "id", get_u32(tb, PRISM_ATTR_FL_ID));
	/*
	 * The kernel leaves out the region start, with the rkey, for callers
	 * without CAP_NET_ADMIN; with the rkey, its absence means the region
	 * went away meanwhile.
	 */
	if (tb[PRISM_ATTR_REGION_START])
		out_hex("region_start", "region",
			get_u64(tb, PRISM_ATTR_REGION_START));
	else if (!tb[PRISM_ATTR_RKEY])
		out_hidden("region_start", "region");
	out_u64("buf_size", "size", get_u32(tb, PRISM_ATTR_FL_BUF_SIZE));
	out_u64("capacity", "capacity", get_u32(tb, PRISM_ATTR_FL_CAPACITY));
	out_u64("count", "count", get_u32(tb, PRISM_ATTR_FL_COUNT));
	put_rkey(tb);
	return 0;
}

static int fl_show(int argc, char **argv)
{
	struct kv kv[] = {
		{ "ep", false, 0, false }, { "id", false, 0, false },
		{ NULL, false, 0, false },
	};
	struct nlmsghdr *nlh;
	bool one;
	int err;

	err = parse_kv(argc, argv, kv);
	if (err)
		return err;
	if (kv[1].seen && !kv[0].seen)
		return usage_error("%s: 'id' needs 'ep'", what);
	if (nl_open())
		return 1;
	one = kv[1].seen;
	nlh = nl_req(PRISM_CMD_FREELIST_GET, one ? 0 : NLM_F_DUMP);
	if (kv[0].seen)
		mnl_attr_put_u32(nlh, PRISM_ATTR_EP, (uint32_t)kv[0].val);
	if (one)
		mnl_attr_put_u32(nlh, PRISM_ATTR_FL_ID, (uint32_t)kv[1].val);
	return show_reply(NULL, nlh, put_freelist);
}

static int fl_create(int argc, char **argv)
{
	struct kv kv[] = {
		{ "ep", false, 0, false }, { "rkey", true, 0, false },
		{ "size", false, 0, false }, { "count", false, 0, false },
		{ NULL, false, 0, false },
	};
	struct nlmsghdr *nlh;
	int err;

	err = parse_kv(argc, argv, kv);
	if (!err)
		err = require(kv);
	if (err)
		return err;
	if (nl_open())
		return 1;
	nlh = nl_req(PRISM_CMD_FREELIST_CREATE, 0);
	mnl_attr_put_u32(nlh, PRISM_ATTR_EP, (uint32_t)kv[0].val);
	mnl_attr_put_u64(nlh, PRISM_ATTR_RKEY, kv[1].val);
	mnl_attr_put_u32(nlh, PRISM_ATTR_FL_BUF_SIZE, (uint32_t)kv[2].val);
	mnl_attr_put_u32(nlh, PRISM_ATTR_FL_CAPACITY, (uint32_t)kv[3].val);
	return talk_objs(nlh, put_freelist);
}

static int put_posted(attrs_t tb)
{
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	out_u64("id", "id", get_u32(tb, PRISM_ATTR_FL_ID));
	out_u64("posted", "posted", get_u32(tb, PRISM_ATTR_FL_POSTED));
	if (tb[PRISM_ATTR_FL_COUNT])
		out_u64("count", "count", get_u32(tb, PRISM_ATTR_FL_COUNT));
	return 0;
}

/* 4096 x 12 bytes: well below the 64 KiB limit of one attribute. */
#define ADDRS_PER_NEST	4096

static int fl_post(int argc, char **argv)
{
	struct kv kv[] = {
		{ "ep", false, 0, false }, { "id", false, 0, false },
		{ NULL, false, 0, false },
	};
	struct kv start = { "carve start", true, 0, false };
	struct kv count = { "carve count", false, 0, false };
	char **addrs = NULL;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int naddrs = 0, i, err;
	uint64_t a;
	struct kv *k;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "carve")) {
			if (start.seen || addrs)
				return usage_error("%s: give one 'carve' or one 'addrs'",
						   what);
			if (i + 2 >= argc)
				return usage_error("%s: 'carve' needs START and COUNT",
						   what);
			err = kv_value(&start, argv[i + 1]);
			if (!err)
				err = kv_value(&count, argv[i + 2]);
			if (err)
				return err;
			i += 2;
		} else if (!strcmp(argv[i], "addrs")) {
			if (start.seen || addrs)
				return usage_error("%s: give one 'carve' or one 'addrs'",
						   what);
			addrs = argv + i + 1;
			/* Addresses run up to the next keyword. */
			while (i + 1 < argc && !kv_find(kv, argv[i + 1]) &&
			       strcmp(argv[i + 1], "carve") &&
			       strcmp(argv[i + 1], "addrs")) {
				if (!parse_u64(argv[i + 1], &a))
					return usage_error("%s: invalid address '%s'",
							   what, argv[i + 1]);
				naddrs++;
				i++;
			}
			if (!naddrs)
				return usage_error("%s: 'addrs' needs at least one address",
						   what);
		} else {
			k = kv_find(kv, argv[i]);
			if (!k)
				return usage_error("%s: unknown argument '%s'",
						   what, argv[i]);
			err = kv_value(k, i + 1 < argc ? argv[i + 1] : NULL);
			if (err)
				return err;
			i++;
		}
	}
	err = require(kv);
	if (err)
		return err;
	if (!start.seen && !addrs)
		return usage_error("%s: missing 'carve START COUNT' or 'addrs ADDR...'",
				   what);
	if (naddrs > PRISM_GENL_POST_MAX)
		return usage_error("%s: at most %d addresses in one post", what,
				   PRISM_GENL_POST_MAX);
	if (nl_reserve(4096 + (size_t)naddrs * 16))
		return 1;
	if (nl_open())
		return 1;
	nlh = nl_req(PRISM_CMD_FREELIST_POST, 0);
	mnl_attr_put_u32(nlh, PRISM_ATTR_EP, (uint32_t)kv[0].val);
	mnl_attr_put_u32(nlh, PRISM_ATTR_FL_ID, (uint32_t)kv[1].val);
	if (addrs) {
		/* An attribute holds at most 64 KiB: one nest per ADDRS_PER_NEST. */
		nest = NULL;
		for (i = 0; i < naddrs; i++) {
			if (i % ADDRS_PER_NEST == 0) {
				if (nest)
					mnl_attr_nest_end(nlh, nest);
				nest = mnl_attr_nest_start(nlh, PRISM_ATTR_FL_ADDRS);
			}
			parse_u64(addrs[i], &a);
			mnl_attr_put_u64(nlh, PRISM_FL_ADDR, a);
		}
		mnl_attr_nest_end(nlh, nest);
	} else {
		mnl_attr_put_u64(nlh, PRISM_ATTR_FL_CARVE_START, start.val);
		mnl_attr_put_u32(nlh, PRISM_ATTR_FL_CARVE_COUNT,
				 (uint32_t)count.val);
	}
	return talk_objs(nlh, put_posted);
}

const struct cmd freelist_cmds[] = {
	{ "show", fl_show }, { "list", fl_show }, { "create", fl_create },
	{ "post", fl_post }, { NULL, NULL },
};
