// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of completion.c: an answer's per-op results as they come
 * from the network (unknown statuses, outputs that do not fit, lengths
 * whose padding wraps around), the head of a completion (offsets of the
 * outputs, padded to 8 bytes), and a completion built from a one-frame
 * answer or refused, leaving it untouched; with an output buffer, the
 * outputs go there and the completion is its head alone.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/skbuff.h>
#include "../client.h"

#define T_OPS	3

/* ---------------------------------------------------------------------------
 * prism_results_check()
 */
struct t_res_case {
	const char	*desc;
	u8		nops;
	u8		status[T_OPS];
	u32		len[T_OPS];
	u32		room;
	int		ret;
};

static const struct t_res_case t_res_cases[] = {
	{ "no output", 1, { PRISM_S_OK }, { 0 }, 0, 0 },
	{ "8 bytes in 8", 1, { PRISM_S_OK }, { 8 }, 8, 8 },
	{ "5 bytes take 8", 1, { PRISM_S_OK }, { 5 }, 8, 8 },
	{ "5 bytes padded do not fit in 7", 1, { PRISM_S_OK }, { 5 }, 7, -EINVAL },
	{ "9 bytes take 16", 1, { PRISM_S_OK }, { 9 }, 16, 16 },
	{ "output longer than the answer", 1, { PRISM_S_OK }, { 17 }, 16, -EINVAL },
	{ "two outputs fill the answer", 2, { PRISM_S_OK, PRISM_S_OK },
	  { 8, 8 }, 16, 16 },
	{ "the second output is 1 byte too long", 2,
	  { PRISM_S_OK, PRISM_S_OK }, { 8, 1 }, 15, -EINVAL },
	{ "room left over is allowed", 2, { PRISM_S_OK, PRISM_S_OK },
	  { 1, 1 }, 64, 16 },
	{ "last known status", 1, { PRISM_S_MAX }, { 0 }, 0, 0 },
	{ "unknown status", 1, { PRISM_S_MAX + 1 }, { 0 }, 0, -EINVAL },
	{ "unknown status on the third op", 3,
	  { PRISM_S_OK, PRISM_S_OK, 0xff }, { 0, 0, 0 }, 0, -EINVAL },
	{ "length 2^32 - 1", 1, { PRISM_S_OK }, { U32_MAX }, 16, -EINVAL },
	{ "length whose padding wraps to 0", 1, { PRISM_S_OK },
	  { U32_MAX - 6 }, 16, -EINVAL },
	{ "a huge second length after a small first", 2,
	  { PRISM_S_OK, PRISM_S_OK }, { 8, U32_MAX - 6 }, 64, -EINVAL },
};

static void t_res_desc(const struct t_res_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_res, t_res_cases, t_res_desc);

static void t_wres_fill(struct prism_wres *w, u8 nops, const u8 *status,
			const u32 *len)
{
	u8 i;

	for (i = 0; i < nops; i++) {
		w[i].status = status[i];
		w[i].len = htonl(len[i]);
	}
}

static void results_check_cases(struct kunit *test)
{
	const struct t_res_case *c = test->param_value;
	struct prism_wres w[T_OPS] = {};

	t_wres_fill(w, c->nops, c->status, c->len);
	KUNIT_EXPECT_EQ(test, prism_results_check(w, c->nops, c->room), c->ret);
}

/* ---------------------------------------------------------------------------
 * prism_completion_head_put(), prism_completion_size()
 */
static struct prism_req *t_req(struct kunit *test, u8 nops, u32 resp_cap)
{
	struct prism_req *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, req);
	req->nops = nops;
	req->user_data = 0x1122334455667788ULL;
	req->resp_cap = resp_cap;
	return req;
}

static void head_offsets(struct kunit *test)
{
	static const u8 status[T_OPS] = { PRISM_S_OK, PRISM_S_CMP_FAILED,
					  PRISM_S_OK };
	static const u32 len[T_OPS] = { 5, 0, 16 };
	u32 head = prism_completion_head(T_OPS);
	struct prism_req *req = t_req(test, T_OPS, 0);
	struct prism_wres w[T_OPS] = {};
	struct prism_msg *msg;

	KUNIT_EXPECT_EQ(test, head, (u32)(sizeof(struct prism_msg) +
					  T_OPS * sizeof(struct prism_op_result)));
	KUNIT_EXPECT_EQ(test, prism_completion_size(T_OPS, 100), head + 100);
	msg = kunit_kzalloc(test, head, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);
	t_wres_fill(w, T_OPS, status, len);
	prism_completion_head_put(msg, req, w);
	KUNIT_EXPECT_EQ(test, msg->kind, PRISM_MSG_COMPLETION);
	KUNIT_EXPECT_EQ(test, msg->nops, T_OPS);
	KUNIT_EXPECT_EQ(test, msg->user_data, req->user_data);
	KUNIT_EXPECT_EQ(test, msg->len, 0U);	/* the caller's */
	KUNIT_EXPECT_EQ(test, msg->res[0].status, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, msg->res[1].status, PRISM_S_CMP_FAILED);
	KUNIT_EXPECT_EQ(test, msg->res[0].len, 5U);
	KUNIT_EXPECT_EQ(test, msg->res[1].len, 0U);
	KUNIT_EXPECT_EQ(test, msg->res[2].len, 16U);
	/* Outputs follow the head in op order, each padded to 8 bytes. */
	KUNIT_EXPECT_EQ(test, msg->res[0].offset, head);
	KUNIT_EXPECT_EQ(test, msg->res[1].offset, 0U);	/* no output */
	KUNIT_EXPECT_EQ(test, msg->res[2].offset, head + 8);
}

/* ---------------------------------------------------------------------------
 * prism_fill_completion()
 */
struct t_fill_case {
	const char	*desc;
	u32		len[2];		/* outputs the results announce */
	u32		body_len;	/* bytes after the two results */
	u32		resp_cap;	/* what the chain may return */
	u32		cut;		/* bytes the frame lacks at its end */
	bool		ok;
};

#define T_RES_BYTES	(2 * sizeof(struct prism_wres))

static const struct t_fill_case t_fill_cases[] = {
	{ "two outputs", { 3, 8 }, 16, 64, 0, true },
	{ "no outputs", { 0, 0 }, 0, 64, 0, true },
	{ "answer larger than the chain may return", { 3, 8 }, 16,
	  T_RES_BYTES + 15, 0, false },
	{ "outputs longer than the answer", { 3, 9 }, 16, 64, 0, false },
	{ "answer shorter than its results", { 0, 0 }, 0, 64, 1, false },
};

static void t_fill_desc(const struct t_fill_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_fill, t_fill_cases, t_fill_desc);

static void fill_cases(struct kunit *test)
{
	static const u8 status[2] = { PRISM_S_OK, PRISM_S_OK };
	const struct t_fill_case *c = test->param_value;
	struct prism_req *req = t_req(test, 2, c->resp_cap);
	u32 head = prism_completion_head(2), i;
	u32 body_len = T_RES_BYTES + c->body_len - c->cut;
	struct prism_msg *msg;
	u8 *body;
	bool ok;

	body = kunit_kzalloc(test, T_RES_BYTES + c->body_len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, body);
	t_wres_fill((struct prism_wres *)body, 2, status, c->len);
	for (i = 0; i < c->body_len; i++)
		body[T_RES_BYTES + i] = 0xa0 + i;
	req->cskb = alloc_skb(prism_completion_size(2, 64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, req->cskb);

	ok = prism_fill_completion(req, body, body_len);
	KUNIT_EXPECT_EQ(test, ok, c->ok);
	if (!ok) {
		KUNIT_EXPECT_EQ(test, req->cskb->len, 0U);	/* untouched */
		goto out;
	}
	msg = (struct prism_msg *)req->cskb->data;
	KUNIT_EXPECT_EQ(test, msg->len, req->cskb->len);
	KUNIT_EXPECT_EQ(test, msg->len, head + PRISM_PAD8(c->len[0]) +
			PRISM_PAD8(c->len[1]));
	if (c->len[0])
		KUNIT_EXPECT_EQ(test, req->cskb->data[msg->res[0].offset], 0xa0);
	if (c->len[1])
		KUNIT_EXPECT_EQ(test, req->cskb->data[msg->res[1].offset],
				0xa0 + PRISM_PAD8(c->len[0]));
out:
	kfree_skb(req->cskb);
}

/* A one-frame answer for a chain with an output buffer (outbuf.c). */
static void fill_outbuf(struct kunit *test)
{
	static const u8 status[2] = { PRISM_S_OK, PRISM_S_OK };
	static const u32 len[2] = { 3, 8 };
	struct prism_req *req = t_req(test, 2, T_RES_BYTES + 16);
	u32 head = prism_completion_head(2), i;
	struct prism_msg *msg;
	struct page *page;
	u8 body[T_RES_BYTES + 16], *p;

	t_wres_fill((struct prism_wres *)body, 2, status, len);
	for (i = 0; i < 16; i++)
		body[T_RES_BYTES + i] = 0xa0 + i;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, page);
	req->ob = prism_obuf_of_pages(&page, 1, 100, 16);
	KUNIT_ASSERT_NOT_NULL(test, req->ob);
	req->cskb = alloc_skb(head, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, req->cskb);

	KUNIT_EXPECT_TRUE(test, prism_fill_completion(req, body,
						      T_RES_BYTES + 16));
	msg = (struct prism_msg *)req->cskb->data;
	KUNIT_EXPECT_EQ(test, msg->len, head);	/* the results alone */
	KUNIT_EXPECT_EQ(test, req->cskb->len, head);
	/* Offsets count from the output buffer's start. */
	KUNIT_EXPECT_EQ(test, msg->res[0].offset, 0U);
	KUNIT_EXPECT_EQ(test, msg->res[1].offset, 8U);
	KUNIT_EXPECT_EQ(test, msg->res[1].len, 8U);
	p = kmap_local_page(page);
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, p[100 + i], 0xa0 + i);
	KUNIT_EXPECT_EQ(test, p[99], 0);
	KUNIT_EXPECT_EQ(test, p[116], 0);
	kunmap_local(p);
	kfree_skb(req->cskb);
	kvfree(req->ob);
	__free_page(page);
}

static struct kunit_case prism_completion_test_cases[] = {
	KUNIT_CASE_PARAM(results_check_cases, t_res_gen_params),
	KUNIT_CASE(head_offsets),
	KUNIT_CASE_PARAM(fill_cases, t_fill_gen_params),
	KUNIT_CASE(fill_outbuf),
	{}
};

static struct kunit_suite prism_completion_suite = {
	.name = "prism_completion",
	.test_cases = prism_completion_test_cases,
};

kunit_test_suite(prism_completion_suite);
