// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl: inspect and configure PRISM endpoints over the "prism" generic
 * netlink family, in the style of iproute2's rdma tool.
 *
 *   prismctl [-j] [-p] [-s] OBJECT [COMMAND [ARGS...]]
 *
 * See prismctl.8.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/prism.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

#define PRISMCTL_VERSION	"1.0"

static struct {
	bool	json;
	bool	pretty;
	bool	stats;
} opt;

/* "endpoint show", for messages. */
static char what[64];

static const char *const stat_names[] = {
	"chains_sent", "chains_completed", "chains_timed_out",
	"chains_served", "ops_served", "ops_failed", "sends_received",
	"rx_dropped", "retransmits", "nacks_received", "nacks_sent",
	"duplicates", "unauth_refused", "replies_limited", "over_budget",
	"rcvbuf_full", "resp_forged",
};

#define NR_STATS	(int)(sizeof(stat_names) / sizeof(stat_names[0]))
/* One name per counter attribute (they start after UNSPEC and PAD). */
_Static_assert(NR_STATS == PRISM_STATS_ATTR_MAX - 1,
	       "stat_names must follow enum prism_stats_attr");

static const char *const peer_stat_names[] = {
	"chains_sent", "chains_completed", "timeouts", "nacks", "retransmits",
};

#define NR_PEER_STATS	(int)(sizeof(peer_stat_names) / sizeof(peer_stat_names[0]))
_Static_assert(NR_PEER_STATS == PRISM_PEER_STATS_ATTR_MAX - 1,
	       "peer_stat_names must follow enum prism_peer_stats_attr");

/* Names of the request attributes, for error messages. */
static const char *const attr_names[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= "ep",
	[PRISM_ATTR_IFINDEX]		= "ifindex",
	[PRISM_ATTR_RKEY]		= "rkey",
	[PRISM_ATTR_FL_ID]		= "id",
	[PRISM_ATTR_FL_BUF_SIZE]	= "size",
	[PRISM_ATTR_FL_CAPACITY]	= "count",
	[PRISM_ATTR_FL_ADDRS]		= "addrs",
	[PRISM_ATTR_FL_CARVE_START]	= "carve start",
	[PRISM_ATTR_FL_CARVE_COUNT]	= "carve count",
	[PRISM_ATTR_PEER_MAC]		= "peer mac",
	[PRISM_ATTR_PEER_EP]		= "peer ep",
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: prismctl [OPTIONS] OBJECT [COMMAND [ARGS...]]\n"
		"       prismctl [OPTIONS] endpoint show [ep EP]\n"
		"       prismctl [OPTIONS] region show [ep EP]\n"
		"       prismctl [OPTIONS] freelist show [ep EP [id ID]]\n"
		"       prismctl [OPTIONS] freelist create ep EP rkey RKEY size SIZE count COUNT\n"
		"       prismctl [OPTIONS] freelist post ep EP id ID carve START COUNT\n"
		"       prismctl [OPTIONS] freelist post ep EP id ID addrs ADDR [ADDR...]\n"
		"       prismctl [OPTIONS] stats [show]\n"
		"       prismctl [OPTIONS] peer show [ep EP [peer MAC peer_ep EP]]\n"
		"       prismctl [OPTIONS] monitor [all|endpoint|region|freelist]\n"
		"OPTIONS: -j/--json  JSON output\n"
		"         -p/--pretty  indented JSON\n"
		"         -s/--stats  counters (endpoint show; stats: per endpoint too)\n"
		"         -h/--help, -V/--version\n"
		"Numbers are decimal or 0x-prefixed hexadecimal.\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "prismctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'prismctl help' or 'man prismctl'.\n");
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------------
 * Arguments
 */
static bool parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	/* strtoull() would accept a sign and leading blanks. */
	if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ' ||
	    (s[0] >= '\t' && s[0] <= '\r'))
		return false;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

struct kv {
	const char	*name;
	bool		wide;		/* u64, else u32 */
	uint64_t	val;
	bool		seen;
};

static struct kv *kv_find(struct kv *kv, const char *name)
{
	for (; kv->name; kv++)
		if (!strcmp(kv->name, name))
			return kv;
	return NULL;
}

static int kv_value(struct kv *k, const char *s)
{
	if (k->seen)
		return usage_error("%s: '%s' given twice", what, k->name);
	if (!s)
		return usage_error("%s: '%s' needs a value", what, k->name);
	if (!parse_u64(s, &k->val) || (!k->wide && k->val > UINT32_MAX))
		return usage_error("%s: invalid %s '%s' (expected an unsigned %s-bit number)",
				   what, k->name, s, k->wide ? "64" : "32");
	k->seen = true;
	return 0;
}

/* NAME VALUE pairs, all of them from kv; 0 or an exit status. */
static int parse_kv(int argc, char **argv, struct kv *kv)
{
	struct kv *k;
	int i, err;

	for (i = 0; i < argc; i += 2) {
		k = kv_find(kv, argv[i]);
		if (!k)
			return usage_error("%s: unknown argument '%s'", what,
					   argv[i]);
		err = kv_value(k, i + 1 < argc ? argv[i + 1] : NULL);
		if (err)
			return err;
	}
	return 0;
}

static int require(struct kv *kv)
{
	for (; kv->name; kv++)
		if (!kv->seen)
			return usage_error("%s: missing '%s'", what, kv->name);
	return 0;
}

/* ------------------------------------------------------------------------
 * Errors from the kernel
 */
/* Describe the request attribute at byte offset off of req. */
static void describe_attr(const struct nlmsghdr *req, int off, char *buf,
			  size_t len)
{
	const struct nlattr *a, *n;
	int type, i;

	buf[0] = '\0';
	if (off < 0 || (size_t)off >= req->nlmsg_len)
		return;
	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr)) {
		const char *p = (const char *)a, *q = (const char *)req + off;

		if (q < p || q >= p + a->nla_len)
			continue;
		type = mnl_attr_get_type(a);
		if (type == PRISM_ATTR_FL_ADDRS && q != p) {
			i = 0;
			mnl_attr_for_each_nested(n, a) {
				if ((const char *)n == q) {
					snprintf(buf, len, " (addrs[%d] = 0x%" PRIx64 ")",
						 i, mnl_attr_get_u64(n));
					return;
				}
				i++;
			}
		}
		if (type <= PRISM_ATTR_MAX && attr_names[type])
			snprintf(buf, len, " (%s)", attr_names[type]);
		return;
	}
}

/* Print why request req failed with errno err; returns exit status 1. */
static int report(const struct nlmsghdr *req, int err, const struct nl_err *e)
{
	char where[96];

	if (err < 0)	/* already reported */
		return 1;
	if (err == EPERM || err == EACCES) {
		fprintf(stderr, "prismctl: %s: permission denied (needs CAP_NET_ADMIN)\n",
			what);
		return 1;
	}
	describe_attr(req, e->bad_attr, where, sizeof(where));
	if (e->msg[0])
		fprintf(stderr, "prismctl: %s: %s%s: %s\n", what, e->msg, where,
			strerror(err));
	else if (e->miss_type > 0 && e->miss_type <= PRISM_ATTR_MAX &&
		 attr_names[e->miss_type])
		fprintf(stderr, "prismctl: %s: missing '%s': %s\n", what,
			attr_names[e->miss_type], strerror(err));
	else
		fprintf(stderr, "prismctl: %s%s: %s\n", what, where,
			strerror(err));
	return 1;
}

/* ------------------------------------------------------------------------
 * Reply parsing
 */
static const enum mnl_attr_data_type attr_types[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= MNL_TYPE_U32,
	[PRISM_ATTR_IFINDEX]		= MNL_TYPE_U32,
	[PRISM_ATTR_IFNAME]		= MNL_TYPE_NUL_STRING,
	[PRISM_ATTR_MAC]		= MNL_TYPE_BINARY,
	[PRISM_ATTR_OWNER_PID]		= MNL_TYPE_U32,
	[PRISM_ATTR_NR_REGIONS]		= MNL_TYPE_U32,
	[PRISM_ATTR_NR_FREELISTS]	= MNL_TYPE_U32,
	[PRISM_ATTR_PINNED_PAGES]	= MNL_TYPE_U64,
	[PRISM_ATTR_OUTSTANDING]	= MNL_TYPE_U32,
	[PRISM_ATTR_MAX_OUTSTANDING]	= MNL_TYPE_U32,
	[PRISM_ATTR_TIMEOUT_MS]		= MNL_TYPE_U32,
	[PRISM_ATTR_STATS]		= MNL_TYPE_NESTED,
	[PRISM_ATTR_RKEY]		= MNL_TYPE_U64,
	[PRISM_ATTR_REGION_START]	= MNL_TYPE_U64,
	[PRISM_ATTR_REGION_LEN]		= MNL_TYPE_U64,
	[PRISM_ATTR_REGION_ACCESS]	= MNL_TYPE_U32,
	[PRISM_ATTR_REGION_PAGES]	= MNL_TYPE_U64,
	[PRISM_ATTR_FL_ID]		= MNL_TYPE_U32,
	[PRISM_ATTR_FL_BUF_SIZE]	= MNL_TYPE_U32,
	[PRISM_ATTR_FL_CAPACITY]	= MNL_TYPE_U32,
	[PRISM_ATTR_FL_COUNT]		= MNL_TYPE_U32,
	[PRISM_ATTR_FL_POSTED]		= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_MAC]		= MNL_TYPE_BINARY,
	[PRISM_ATTR_PEER_EP]		= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_SRTT_US]	= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_RTTVAR_US]	= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_RTO_US]	= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_STATS]		= MNL_TYPE_NESTED,
};

typedef const struct nlattr *attrs_t[PRISM_ATTR_MAX + 1];

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	/* Attributes of newer modules are skipped. */
	if (type > PRISM_ATTR_MAX)
		return MNL_CB_OK;
	if (attr_types[type] != MNL_TYPE_UNSPEC &&
	    mnl_attr_validate(a, attr_types[type]) < 0)
		return MNL_CB_ERROR;
	if ((type == PRISM_ATTR_MAC || type == PRISM_ATTR_PEER_MAC) &&
	    mnl_attr_get_payload_len(a) != 6)
		return MNL_CB_ERROR;
	tb[type] = a;
	return MNL_CB_OK;
}

static int parse_reply(const struct nlmsghdr *nlh, attrs_t tb)
{
	memset(tb, 0, sizeof(attrs_t));
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attr_cb, tb) !=
	    MNL_CB_OK) {
		fprintf(stderr, "prismctl: %s: malformed reply from the kernel\n",
			what);
		return -1;
	}
	return 0;
}

/* Counters of a stats nest (u64 attributes 2..) into c[0..n). */
static int parse_counters(const struct nlattr *nest, uint64_t *c, int n)
{
	const struct nlattr *a;
	int type;

	memset(c, 0, sizeof(*c) * (size_t)n);
	mnl_attr_for_each_nested(a, nest) {
		type = mnl_attr_get_type(a);
		/* Type 1 is the padding attribute in both nests. */
		if (type < 2 || type - 2 >= n)
			continue;
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0) {
			fprintf(stderr, "prismctl: %s: malformed counters from the kernel\n",
				what);
			return -1;
		}
		c[type - 2] = mnl_attr_get_u64(a);
	}
	return 0;
}

static uint64_t get_u32(attrs_t tb, int type)
{
	return tb[type] ? mnl_attr_get_u32(tb[type]) : 0;
}

static uint64_t get_u64(attrs_t tb, int type)
{
	return tb[type] ? mnl_attr_get_u64(tb[type]) : 0;
}

static void put_mac(const char *key, const char *label,
		    const struct nlattr *a)
{
	const uint8_t *m = mnl_attr_get_payload(a);
	char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
	out_str(key, label, buf);
}

static int put_counters(const char *key, const struct nlattr *nest,
			const char *const *names, int n)
{
	uint64_t c[NR_STATS > NR_PEER_STATS ? NR_STATS : NR_PEER_STATS];
	int i;

	if (n > (int)(sizeof(c) / sizeof(c[0])) || parse_counters(nest, c, n))
		return -1;
	out_obj_begin(key);
	for (i = 0; i < n; i++)
		out_u64(names[i], names[i], c[i]);
	out_obj_end();
	return 0;
}

/* Send a show request; print its replies as one list (JSON: an array). */
static int show_reply(struct nlmsghdr *nlh, nl_cb_t cb)
{
	struct nl_err e;
	int err;

	out_arr_begin(NULL);
	err = nl_talk(nlh, cb, NULL, &e);
	if (err)
		return report(nlh, err, &e);
	out_arr_end();
	return 0;
}

/* ------------------------------------------------------------------------
 * endpoint
 */
static int ep_cb(const struct nlmsghdr *nlh, void *data)
{
	attrs_t tb;

	(void)data;
	if (parse_reply(nlh, tb))
		return -1;
	out_obj_begin(NULL);
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	out_u64("ifindex", tb[PRISM_ATTR_IFNAME] ? NULL : "ifindex",
		get_u32(tb, PRISM_ATTR_IFINDEX));
	if (tb[PRISM_ATTR_IFNAME])
		out_str("dev", "dev", mnl_attr_get_str(tb[PRISM_ATTR_IFNAME]));
	if (tb[PRISM_ATTR_MAC])
		put_mac("mac", "mac", tb[PRISM_ATTR_MAC]);
	/* Owner pid, region addresses, rkeys: only for CAP_NET_ADMIN. */
	if (tb[PRISM_ATTR_OWNER_PID])
		out_u64("pid", "pid", get_u32(tb, PRISM_ATTR_OWNER_PID));
	else
		out_hidden("pid", "pid");
	out_u64("regions", "regions", get_u32(tb, PRISM_ATTR_NR_REGIONS));
	out_u64("freelists", "freelists", get_u32(tb, PRISM_ATTR_NR_FREELISTS));
	out_u64("pinned_pages", "pinned", get_u64(tb, PRISM_ATTR_PINNED_PAGES));
	out_u64("outstanding", NULL, get_u32(tb, PRISM_ATTR_OUTSTANDING));
	out_u64("max_outstanding", NULL,
		get_u32(tb, PRISM_ATTR_MAX_OUTSTANDING));
	out_tpair("outstanding", "%" PRIu64 "/%" PRIu64,
		  get_u32(tb, PRISM_ATTR_OUTSTANDING),
		  get_u32(tb, PRISM_ATTR_MAX_OUTSTANDING));
	out_u64("timeout_ms", NULL, get_u32(tb, PRISM_ATTR_TIMEOUT_MS));
	out_tpair("timeout", "%" PRIu64 "ms", get_u32(tb, PRISM_ATTR_TIMEOUT_MS));
	if (opt.stats && tb[PRISM_ATTR_STATS] &&
	    put_counters("stats", tb[PRISM_ATTR_STATS], stat_names, NR_STATS))
		return -1;
	out_obj_end();
	return 0;
}

/*
 * "show [ep EP]" of objects that belong to endpoints: all of them, or
 * those of EP (one object when ep_is_object: the endpoint itself).
 */
static int show_by_ep(int argc, char **argv, uint8_t cmd, bool ep_is_object,
		      nl_cb_t cb)
{
	struct kv kv[] = { { "ep", false, 0, false }, { NULL, false, 0, false } };
	struct nlmsghdr *nlh;
	int err;

	err = parse_kv(argc, argv, kv);
	if (err)
		return err;
	if (nl_open())
		return 1;
	nlh = nl_req(cmd, kv[0].seen && ep_is_object ? 0 : NLM_F_DUMP);
	if (kv[0].seen)
		mnl_attr_put_u32(nlh, PRISM_ATTR_EP, (uint32_t)kv[0].val);
	return show_reply(nlh, cb);
}

static int do_endpoint(int argc, char **argv)
{
	return show_by_ep(argc, argv, PRISM_CMD_ENDPOINT_GET, true, ep_cb);
}

/* ------------------------------------------------------------------------
 * region
 */
/* The rkey, or "hidden" (the kernel shows it only to CAP_NET_ADMIN). */
static void put_rkey(attrs_t tb)
{
	if (tb[PRISM_ATTR_RKEY])
		out_hex("rkey", "rkey", get_u64(tb, PRISM_ATTR_RKEY));
	else
		out_hidden("rkey", "rkey");
}

static void put_access(uint32_t acc)
{
	const char *names[4];
	char other[16];
	int n = 0;

	if (acc & PRISM_ACCESS_REMOTE_READ)
		names[n++] = "read";
	if (acc & PRISM_ACCESS_REMOTE_WRITE)
		names[n++] = "write";
	if (acc & PRISM_ACCESS_REMOTE_ATOMIC)
		names[n++] = "atomic";
	if (acc & ~(uint32_t)PRISM_ACCESS_ALL) {
		snprintf(other, sizeof(other), "0x%x",
			 acc & ~(uint32_t)PRISM_ACCESS_ALL);
		names[n++] = other;
	}
	out_strs("access", "access", names, n);
}

static int region_cb(const struct nlmsghdr *nlh, void *data)
{
	attrs_t tb;

	(void)data;
	if (parse_reply(nlh, tb))
		return -1;
	out_obj_begin(NULL);
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	if (tb[PRISM_ATTR_REGION_START])
		out_hex("start", "start", get_u64(tb, PRISM_ATTR_REGION_START));
	else
		out_hidden("start", "start");
	out_u64("len", "len", get_u64(tb, PRISM_ATTR_REGION_LEN));
	put_access((uint32_t)get_u32(tb, PRISM_ATTR_REGION_ACCESS));
	out_u64("pages", "pages", get_u64(tb, PRISM_ATTR_REGION_PAGES));
	put_rkey(tb);
	out_obj_end();
	return 0;
}

static int do_region(int argc, char **argv)
{
	return show_by_ep(argc, argv, PRISM_CMD_REGION_GET, false, region_cb);
}

/* ------------------------------------------------------------------------
 * freelist
 */
static void put_freelist(attrs_t tb)
{
	out_obj_begin(NULL);
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
	out_obj_end();
}

static int fl_cb(const struct nlmsghdr *nlh, void *data)
{
	attrs_t tb;

	(void)data;
	if (parse_reply(nlh, tb))
		return -1;
	put_freelist(tb);
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
	return show_reply(nlh, fl_cb);
}

static int fl_create(int argc, char **argv)
{
	struct kv kv[] = {
		{ "ep", false, 0, false }, { "rkey", true, 0, false },
		{ "size", false, 0, false }, { "count", false, 0, false },
		{ NULL, false, 0, false },
	};
	struct nlmsghdr *nlh;
	struct nl_err e;
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
	err = nl_talk(nlh, fl_cb, NULL, &e);
	if (err)
		return report(nlh, err, &e);
	return 0;
}

static int post_cb(const struct nlmsghdr *nlh, void *data)
{
	attrs_t tb;

	(void)data;
	if (parse_reply(nlh, tb))
		return -1;
	out_obj_begin(NULL);
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	out_u64("id", "id", get_u32(tb, PRISM_ATTR_FL_ID));
	out_u64("posted", "posted", get_u32(tb, PRISM_ATTR_FL_POSTED));
	if (tb[PRISM_ATTR_FL_COUNT])
		out_u64("count", "count", get_u32(tb, PRISM_ATTR_FL_COUNT));
	out_obj_end();
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
	struct nl_err e;
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
	err = nl_talk(nlh, post_cb, NULL, &e);
	if (err)
		return report(nlh, err, &e);
	return 0;
}

/* ------------------------------------------------------------------------
 * stats
 */
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

static int stats_ep_cb(const struct nlmsghdr *nlh, void *data)
{
	attrs_t tb;

	(void)data;
	if (parse_reply(nlh, tb))
		return -1;
	out_obj_begin(NULL);
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	if (tb[PRISM_ATTR_IFNAME])
		out_str("dev", "dev", mnl_attr_get_str(tb[PRISM_ATTR_IFNAME]));
	if (tb[PRISM_ATTR_STATS] &&
	    put_counters("stats", tb[PRISM_ATTR_STATS], stat_names, NR_STATS))
		return -1;
	out_obj_end();
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
		out_arr_begin("endpoints");
		nlh = nl_req(PRISM_CMD_ENDPOINT_GET, NLM_F_DUMP);
		err = nl_talk(nlh, stats_ep_cb, NULL, &e);
		if (err)
			return report(nlh, err, &e);
		out_arr_end();
	}
	if (out_json())
		out_obj_end();
	return 0;
}

/* ------------------------------------------------------------------------
 * peer
 */
static int peer_cb(const struct nlmsghdr *nlh, void *data)
{
	attrs_t tb;

	(void)data;
	if (parse_reply(nlh, tb))
		return -1;
	out_obj_begin(NULL);
	if (tb[PRISM_ATTR_EP])
		out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	if (tb[PRISM_ATTR_PEER_MAC])
		put_mac("peer_mac", "peer", tb[PRISM_ATTR_PEER_MAC]);
	out_u64("peer_ep", "peer_ep", get_u32(tb, PRISM_ATTR_PEER_EP));
	out_u64("ifindex", "ifindex", get_u32(tb, PRISM_ATTR_IFINDEX));
	out_u64("srtt_us", NULL, get_u32(tb, PRISM_ATTR_PEER_SRTT_US));
	out_tpair("srtt", "%" PRIu64 "us", get_u32(tb, PRISM_ATTR_PEER_SRTT_US));
	out_u64("rttvar_us", NULL, get_u32(tb, PRISM_ATTR_PEER_RTTVAR_US));
	out_tpair("rttvar", "%" PRIu64 "us",
		  get_u32(tb, PRISM_ATTR_PEER_RTTVAR_US));
	out_u64("rto_us", NULL, get_u32(tb, PRISM_ATTR_PEER_RTO_US));
	out_tpair("rto", "%" PRIu64 "us", get_u32(tb, PRISM_ATTR_PEER_RTO_US));
	if (tb[PRISM_ATTR_PEER_STATS] &&
	    put_counters("stats", tb[PRISM_ATTR_PEER_STATS], peer_stat_names,
			 NR_PEER_STATS))
		return -1;
	out_obj_end();
	return 0;
}

/* "02:00:00:00:01:0a" -> 6 bytes; -1 unless exactly six hex pairs. */
static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	int i;

	if (strlen(s) != 17)
		return -1;
	for (i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return -1;
	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/*
 * peer show [ep EP [peer MAC peer_ep EP]]: all peers (of one endpoint), or
 * one peer of one endpoint.
 */
static int do_peer(int argc, char **argv)
{
	struct kv kv[] = { { "ep", false, 0, false },
			   { "peer_ep", false, 0, false },
			   { NULL, false, 0, false } };
	char *rest[8];
	const char *mac_arg = NULL;
	uint8_t mac[6];
	struct nlmsghdr *nlh;
	int i, n = 0, err;
	bool one;

	/* "peer MAC" takes a string; the rest are numbers. */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "peer")) {
			if (i + 1 >= argc)
				return usage_error("%s: 'peer' needs a MAC address", what);
			mac_arg = argv[++i];
			if (parse_mac(mac_arg, mac))
				return usage_error("%s: bad MAC address '%s'", what, mac_arg);
		} else if (n < (int)(sizeof(rest) / sizeof(rest[0]))) {
			rest[n++] = argv[i];
		} else {
			return usage_error("%s: unknown argument '%s'", what, argv[i]);
		}
	}
	err = parse_kv(n, rest, kv);
	if (err)
		return err;
	one = mac_arg || kv[1].seen;
	if (one && !(mac_arg && kv[0].seen && kv[1].seen))
		return usage_error("%s: one peer needs 'ep', 'peer' and 'peer_ep'", what);
	if (nl_open())
		return 1;
	nlh = nl_req(PRISM_CMD_PEER_GET, one ? 0 : NLM_F_DUMP);
	if (kv[0].seen)
		mnl_attr_put_u32(nlh, PRISM_ATTR_EP, (uint32_t)kv[0].val);
	if (one) {
		mnl_attr_put(nlh, PRISM_ATTR_PEER_MAC, sizeof(mac), mac);
		mnl_attr_put_u32(nlh, PRISM_ATTR_PEER_EP, (uint32_t)kv[1].val);
	}
	return show_reply(nlh, peer_cb);
}

/* ------------------------------------------------------------------------
 * monitor [all|endpoint|region|freelist]: print the module's events, one
 * line (JSON: one object) each, until SIGINT or SIGTERM.
 */
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

/* ------------------------------------------------------------------------
 * Dispatch
 */
struct cmd {
	const char	*name;
	int		(*fn)(int argc, char **argv);
};

struct object {
	const char		*name;
	const struct cmd	*cmds;	/* first one is the default */
};

static const struct cmd endpoint_cmds[] = {
	{ "show", do_endpoint }, { "list", do_endpoint }, { NULL, NULL },
};

static const struct cmd region_cmds[] = {
	{ "show", do_region }, { "list", do_region }, { NULL, NULL },
};

static const struct cmd freelist_cmds[] = {
	{ "show", fl_show }, { "list", fl_show }, { "create", fl_create },
	{ "post", fl_post }, { NULL, NULL },
};

static const struct cmd stats_cmds[] = {
	{ "show", do_stats }, { NULL, NULL },
};

static const struct cmd peer_cmds[] = {
	{ "show", do_peer }, { "list", do_peer }, { NULL, NULL },
};

static const struct cmd monitor_cmds[] = {
	{ "all", mon_all }, { "endpoint", mon_endpoint },
	{ "region", mon_region }, { "freelist", mon_freelist },
	{ NULL, NULL },
};

static const struct object objects[] = {
	{ "endpoint", endpoint_cmds },
	{ "region", region_cmds },
	{ "freelist", freelist_cmds },
	{ "stats", stats_cmds },
	{ "peer", peer_cmds },
	{ "monitor", monitor_cmds },
	{ NULL, NULL },
};

/* Exact name or unambiguous prefix ("fl" is not one: use "free"). */
static const void *lookup(const char *word, const void *table, size_t stride)
{
	const char *p = table, *found = NULL;
	size_t len = strlen(word);
	const char *name;

	if (!len)
		return NULL;
	for (; (name = *(const char *const *)p); p += stride) {
		if (!strcmp(name, word))
			return p;
		if (!strncmp(name, word, len)) {
			if (found)
				return NULL;
			found = p;
		}
	}
	return found;
}

static int run(int argc, char **argv)
{
	const struct object *obj;
	const struct cmd *cmd;

	if (!argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	obj = lookup(argv[0], objects, sizeof(*objects));
	if (!obj)
		return usage_error("unknown object '%s' (endpoint, region, freelist, stats, peer, monitor)",
				   argv[0]);
	argc--;
	argv++;
	if (argc && !strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	cmd = obj->cmds;
	if (argc) {
		cmd = lookup(argv[0], obj->cmds, sizeof(*obj->cmds));
		if (!cmd)
			return usage_error("%s: unknown command '%s'", obj->name,
					   argv[0]);
		argc--;
		argv++;
	}
	snprintf(what, sizeof(what), "%s %s", obj->name, cmd->name);
	return cmd->fn(argc, argv);
}

int main(int argc, char **argv)
{
	char **args;
	int nargs = 0, i, ret;
	bool opts_done = false;

	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "prismctl: out of memory\n");
		return 1;
	}
	/* Options may come anywhere, as in "prismctl stats -s". */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1]) {
			args[nargs++] = argv[i];
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			opt.json = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
			opt.pretty = true;
		} else if (!strcmp(a, "-s") || !strcmp(a, "--stats")) {
			opt.stats = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(args);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("prismctl %s (netlink family %s version %d)\n",
			       PRISMCTL_VERSION, PRISM_GENL_NAME,
			       PRISM_GENL_VERSION);
			free(args);
			return 0;
		} else if (a[1] != '-' && strspn(a + 1, "jps") == strlen(a + 1)) {
			/* Bundled short options: -js, -jp. */
			opt.json |= !!strchr(a, 'j');
			opt.pretty |= !!strchr(a, 'p');
			opt.stats |= !!strchr(a, 's');
		} else {
			free(args);
			return usage_error("unknown option '%s'", a);
		}
	}
	out_init(opt.json, opt.pretty);
	ret = run(nargs, args);
	nl_close();
	free(args);
	if (ret == 0 && out_flush())
		ret = 1;
	return ret;
}
