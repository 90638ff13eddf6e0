/* SPDX-License-Identifier: GPL-2.0 */
/* What large_sweep.c and large_outbuf.c share. */
#ifndef LARGE_SWEEP_H
#define LARGE_SWEEP_H

#include <stddef.h>
#include "liburing-prism.h"

enum sweep_op { OP_READ, OP_WRITE, OP_INDIRECT, OP_BOUNDED, OP_ALLOC,
		OP_SEND, NR_OPS };

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)
#define SLACK		4096u	/* READ/WRITE start offsets: [0, SLACK) */
#define GUARD		64u	/* bytes after a WRITE/ALLOC that must stay */
#define OB_FILL		0xa5	/* output buffer bytes before a chain */

/*
 * The target's memory, one region: READ area (max + SLACK), WRITE area
 * (max + SLACK + GUARD), two pointer cells, NBUFS free list buffers.
 */
struct layout {
	size_t	max, r_off, w_off, cell_off, fl_off, buf_size, len;
};

struct sweep {
	int			fd;		/* client socket */
	int			tfd;		/* local target, or -1 */
	struct sockaddr_prism	dst, me;
	struct prism_ring	ring;
	struct layout		lay;
	unsigned char		*mem;		/* local target memory */
	__u64			base, rkey;
	__u32			fl;
	unsigned int		timeout_ms;
	size_t			max_op;		/* --max-size */
	unsigned char		*cbuf, *want, *rbuf;
	size_t			cbuf_len, rbuf_len;
	__u64			next_ud;
	unsigned long		stray;		/* unexpected completions */
	unsigned int		buf_busy;	/* free list buffers taken */
	unsigned long		no_buffer;	/* ALLOC retries */
	int			outbuf;		/* --outbuf */
	unsigned char		*ob;		/* the output buffer */
	size_t			ob_len;
};

/* large_sweep.c */
void chain_init(struct sweep *s, struct prism_chain_buf *c);
int run_chain(struct sweep *s, struct prism_chain_buf *c,
	      const struct prism_msg **m, char *why, size_t wl);
int do_read(struct sweep *s, enum sweep_op op, size_t n, char *why,
	    size_t wl);

/* large_outbuf.c: 1 if passed, 0 if not; msg describes the test */
int check_outbuf(struct sweep *s, const struct prism_msg *m, unsigned int i,
		 size_t len, const unsigned char **p, char *why, size_t wl);
int outbuf_exact(struct sweep *s, char *msg, size_t ml);
int outbuf_failed(struct sweep *s, char *msg, size_t ml);
int outbuf_refusals(struct sweep *s, char *msg, size_t ml);

#endif /* LARGE_SWEEP_H */
