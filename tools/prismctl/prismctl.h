/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prismctl: shared declarations.
 *
 *   prismctl.c   global options, dispatch to the objects
 *   endpoint.c, region.c, freelist.c, stats.c, peer.c, monitor.c
 *                one object each: its commands (struct cmd tables)
 *   util.c       arguments, errors from the kernel, reply parsing
 *   nl.c         netlink
 *   out.c        output (text or JSON)
 */
#ifndef PRISMCTL_H
#define PRISMCTL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/prism_netlink.h>

/* Exit statuses (documented in prismctl.8). */
#define EXIT_USAGE	2

/* ------------------------------------------------------------------------
 * Output: text or JSON, collected in memory and written to stdout only when
 * the command succeeded, so that stdout never holds half a JSON document.
 *
 * Text: each top-level object is one line of "key value" pairs; a nested
 * object continues on an indented line.  JSON: objects and arrays as
 * called; keys are the JSON names.
 */
void out_init(bool json, bool pretty);
/* Write what was collected to stdout; 0 or -1 (message printed). */
int out_flush(void);
bool out_json(void);

void out_obj_begin(const char *key);	/* key: NULL at top level / in arrays */
/* Same; in text the object's line starts with label. */
void out_obj_begin_label(const char *key, const char *label);
void out_obj_end(void);
void out_arr_begin(const char *key);
void out_arr_end(void);

/*
 * Members: key is the JSON member name (NULL: not in JSON), label the
 * text-mode name (NULL: not in text, "": value without a name).
 */
void out_u64(const char *key, const char *label, uint64_t v);
/* Text "0x..."; JSON a "0x..." string (64-bit values exceed doubles). */
void out_hex(const char *key, const char *label, uint64_t v);
void out_str(const char *key, const char *label, const char *s);
/*
 * A value the kernel withheld (the caller lacks CAP_NET_ADMIN): JSON null,
 * text "label hidden".
 */
void out_hidden(const char *key, const char *label);
/* JSON: an array of strings; text: the strings joined by ",". */
void out_strs(const char *key, const char *label, const char *const *s,
	      int n);
/* Text only: one "label value" pair, value printf-formatted. */
void out_tpair(const char *label, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Text only: raw text. */
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------------
 * Netlink.
 */
struct nl_err {
	int	err;		/* positive errno */
	char	msg[256];	/* extended ack message, "" if none */
	int	bad_attr;	/* offset of the offending attribute, or -1 */
	int	miss_type;	/* missing attribute type, or 0 */
};

/*
 * Open the generic netlink socket and resolve the "prism" family.
 * Returns 0, or -1 after printing a message (module not loaded, ...).
 */
int nl_open(void);
void nl_close(void);

/* Start a request of command cmd; NLM_F_REQUEST | NLM_F_ACK | flags. */
struct nlmsghdr *nl_req(uint8_t cmd, uint16_t flags);
/* Make room for a request of at least len bytes (before nl_req()). */
int nl_reserve(size_t len);

/*
 * Send nlh and process the answer: cb for each data message (returns 0,
 * or -1 to stop with an error already printed).  Returns 0, -1 after a
 * failed callback, or a positive errno from the kernel with details in
 * *e.
 */
typedef int (*nl_cb_t)(const struct nlmsghdr *nlh, void *data);
int nl_talk(struct nlmsghdr *nlh, nl_cb_t cb, void *data, struct nl_err *e);

/* Join the family's "events" multicast group; 0 or -1 (message printed). */
int nl_join_events(void);
/*
 * Pass every event message to cb until *stop is set by a signal handler
 * (the signals are blocked by the caller; waitmask is the mask while
 * waiting, with them unblocked), then those already queued.  Returns 0
 * when stopped, -1 on an error
 * (message printed) or when cb returns -1.  Lost events (ENOBUFS) are
 * reported on stderr and listening goes on.
 */
int nl_listen(nl_cb_t cb, void *data, const sigset_t *waitmask,
	      volatile sig_atomic_t *stop);

/* ------------------------------------------------------------------------
 * Global options and dispatch (prismctl.c).
 */
struct opts {
	bool	json;
	bool	pretty;
	bool	stats;
};

extern struct opts opt;
/* "endpoint show", for messages. */
extern char what[64];

/* One command of an object; the first of a table is the default. */
struct cmd {
	const char	*name;
	int		(*fn)(int argc, char **argv);
};

/* The commands of each object, NULL-terminated. */
extern const struct cmd endpoint_cmds[];
extern const struct cmd region_cmds[];
extern const struct cmd freelist_cmds[];
extern const struct cmd stats_cmds[];
extern const struct cmd peer_cmds[];
extern const struct cmd monitor_cmds[];

/* ------------------------------------------------------------------------
 * Arguments (util.c).
 */
/* Print a usage error; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Decimal or 0x-prefixed hexadecimal, no sign or blanks. */
bool parse_u64(const char *s, uint64_t *v);

struct kv {
	const char	*name;
	bool		wide;		/* u64, else u32 */
	uint64_t	val;
	bool		seen;
};

struct kv *kv_find(struct kv *kv, const char *name);
int kv_value(struct kv *k, const char *s);
/* NAME VALUE pairs, all of them from kv; 0 or an exit status. */
int parse_kv(int argc, char **argv, struct kv *kv);
/* Every one of kv given; 0 or an exit status. */
int require(struct kv *kv);

/* ------------------------------------------------------------------------
 * Requests and replies (util.c).
 */
/* Print why request req failed with errno err; returns exit status 1. */
int report(const struct nlmsghdr *req, int err, const struct nl_err *e);

typedef const struct nlattr *attrs_t[PRISM_ATTR_MAX + 1];

/* The attributes of a reply into tb; 0 or -1 (message printed). */
int parse_reply(const struct nlmsghdr *nlh, attrs_t tb);
/* Counters of a stats nest (u64 attributes 2..) into c[0..n). */
int parse_counters(const struct nlattr *nest, uint64_t *c, int n);
uint64_t get_u32(attrs_t tb, int type);
uint64_t get_u64(attrs_t tb, int type);
void put_mac(const char *key, const char *label, const struct nlattr *a);
/* An IPv4 or IPv6 address attribute (4 or 16 bytes). */
void put_ip(const char *key, const char *label, const struct nlattr *a);

/* The counters of the stats nest of an endpoint, and of a peer. */
#define NR_STATS	(PRISM_STATS_ATTR_MAX - 1)
#define NR_PEER_STATS	(PRISM_PEER_STATS_ATTR_MAX - 1)
extern const char *const stat_names[];	/* stats.c */

/* The counters of nest as object key, member names names[0..n). */
int put_counters(const char *key, const struct nlattr *nest,
		 const char *const *names, int n);
/*
 * The members of one object of a reply (its attributes parsed into tb):
 * 0, or -1 after printing a message.
 */
typedef int (*put_obj_t)(attrs_t tb);
/*
 * Send request nlh and print each reply as one object with members put;
 * 0 or an exit status (errors reported).
 */
int talk_objs(struct nlmsghdr *nlh, put_obj_t put);
/*
 * Send a show request; print its replies as one list (JSON: an array,
 * member key of the enclosing object unless NULL).
 */
int show_reply(const char *key, struct nlmsghdr *nlh, put_obj_t put);
/*
 * "show [ep EP]" of objects that belong to endpoints: all of them, or
 * those of EP (one object when ep_is_object: the endpoint itself).
 */
int show_by_ep(int argc, char **argv, uint8_t cmd, bool ep_is_object,
	       put_obj_t put);

/* region.c: the rkey (or "hidden"), the access rights of a region. */
void put_rkey(attrs_t tb);
void put_access(uint32_t acc);

#endif /* PRISMCTL_H */
