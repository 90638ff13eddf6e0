// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of outbuf.c: bytes written into an output buffer land at
 * their offset across page boundaries, whatever the buffer's offset in its
 * first page, and nothing around them changes; the same from a frame whose
 * bytes are partly in its head and partly in a page fragment.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/skbuff.h>
#include "../outbuf.h"

#define T_PAGES	3

struct t_ob_case {
	const char	*desc;
	u32		first;	/* the buffer's offset in its first page */
	u32		len;	/* its bytes */
	u32		off;	/* where the write starts */
	u32		n;	/* its bytes */
};

static const struct t_ob_case t_ob_cases[] = {
	{ "inside the first page", 0, 4096, 100, 200 },
	{ "across one page boundary", 100, 8000, 3900, 300 },
	{ "from the last byte of a page", 0, 8192, 4095, 2 },
	{ "the whole buffer over three pages", 3900, 8300, 0, 8300 },
	{ "ending at the buffer's end", 8, 12000, 11000, 1000 },
	{ "one byte at the end", 4095, 8193, 8192, 1 },
	{ "nothing", 16, 100, 50, 0 },
};

static void t_ob_desc(const struct t_ob_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_ob, t_ob_cases, t_ob_desc);

/* Byte i of the pages, as one run of memory. */
static u8 t_byte(struct page **pages, u32 i)
{
	u8 *p = kmap_local_page(pages[i >> PAGE_SHIFT]);
	u8 v = p[offset_in_page(i)];

	kunmap_local(p);
	return v;
}

struct t_ob {
	struct page		*pages[T_PAGES];
	struct prism_obuf	*ob;
	u8			*src;
};

static void t_ob_setup(struct kunit *test, struct t_ob *t,
		       const struct t_ob_case *c)
{
	u32 i;

	for (i = 0; i < T_PAGES; i++) {
		t->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, t->pages[i]);
	}
	t->ob = prism_obuf_of_pages(t->pages, T_PAGES, c->first, c->len);
	KUNIT_ASSERT_NOT_NULL(test, t->ob);
	t->src = kunit_kmalloc(test, c->n + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->src);
	for (i = 0; i < c->n; i++)
		t->src[i] = 1 + i % 251;
}

/* The write landed at first + off, and every other byte is still 0. */
static void t_ob_check(struct kunit *test, struct t_ob *t,
		       const struct t_ob_case *c)
{
	u32 i, bad = 0, want;

	for (i = 0; i < T_PAGES * PAGE_SIZE; i++) {
		want = i >= c->first + c->off && i < c->first + c->off + c->n ?
		       t->src[i - c->first - c->off] : 0;
		if (t_byte(t->pages, i) != want && !bad++)
			KUNIT_FAIL(test, "byte %u of the pages is %u, expected %u",
				   i, t_byte(t->pages, i), want);
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
	kvfree(t->ob);
	for (i = 0; i < T_PAGES; i++)
		__free_page(t->pages[i]);
}

static void write_cases(struct kunit *test)
{
	const struct t_ob_case *c = test->param_value;
	struct t_ob t;

	t_ob_setup(test, &t, c);
	prism_obuf_write(t.ob, c->off, t.src, c->n);
	t_ob_check(test, &t, c);
}

/* The same bytes from a frame: 60 of them in its head, the rest a frag. */
static void write_skb_cases(struct kunit *test)
{
	const struct t_ob_case *c = test->param_value;
	u32 lin = min_t(u32, c->n, 60), rest = c->n - lin;
	struct sk_buff *skb;
	struct page *frag;
	struct t_ob t;

	t_ob_setup(test, &t, c);
	skb = alloc_skb(16 + lin, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_zero(skb, 16);	/* a header before the bytes */
	skb_put_data(skb, t.src, lin);
	if (rest) {
		KUNIT_ASSERT_LE(test, rest, (u32)(PAGE_SIZE << 2));
		frag = alloc_pages(GFP_KERNEL | __GFP_COMP, 2);
		KUNIT_ASSERT_NOT_NULL(test, frag);
		memcpy(page_address(frag), t.src + lin, rest);
		skb_fill_page_desc(skb, 0, frag, 0, rest);
		skb->len += rest;
		skb->data_len += rest;
		skb->truesize += PAGE_SIZE << 2;
	}
	prism_obuf_write_skb(t.ob, c->off, skb, 16, c->n);
	kfree_skb(skb);
	t_ob_check(test, &t, c);
}

static struct kunit_case prism_outbuf_test_cases[] = {
	KUNIT_CASE_PARAM(write_cases, t_ob_gen_params),
	KUNIT_CASE_PARAM(write_skb_cases, t_ob_gen_params),
	{}
};

static struct kunit_suite prism_outbuf_suite = {
	.name = "prism_outbuf",
	.test_cases = prism_outbuf_test_cases,
};

kunit_test_suite(prism_outbuf_suite);
