/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prismctl: shared declarations of the netlink (nl.c) and output (out.c)
 * layers.
 */
#ifndef PRISMCTL_H
#define PRISMCTL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>

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

#endif /* PRISMCTL_H */
