/* SPDX-License-Identifier: GPL-2.0 */
/* Output buffers of chains (outbuf.c). */
#ifndef _PRISM_OUTBUF_H
#define _PRISM_OUTBUF_H

#include <linux/types.h>

struct prism_obuf;
struct sk_buff;

struct prism_obuf *prism_obuf_pin(u64 addr, u64 len, u32 need);
u32 prism_obuf_pages(const struct prism_obuf *ob);
void prism_obuf_release(struct prism_obuf *ob);
void prism_obuf_write(struct prism_obuf *ob, u32 off, const void *src,
		      u32 len);
void prism_obuf_write_skb(struct prism_obuf *ob, u32 off,
			  const struct sk_buff *skb, u32 skb_off, u32 len);
int prism_obuf_init(void);
#if IS_ENABLED(CONFIG_KUNIT)
struct page;
struct prism_obuf *prism_obuf_of_pages(struct page **pages, u32 npages,
				       u32 first, u32 len);
#endif
void prism_obuf_exit(void);

#endif /* _PRISM_OUTBUF_H */
