// SPDX-License-Identifier: GPL-2.0
/*
 * Output buffers: a chain's outputs written straight into the caller's
 * memory (PRISM_CMSG_OUTBUF, uapi prism.h).
 *
 * At submission the buffer's pages are pinned (pin_user_pages_fast(),
 * FOLL_WRITE) and charged to the process's pinned_vm against
 * RLIMIT_MEMLOCK, as RDMA charges its memory regions.  The receive path
 * copies each output once, from the frame that carries it into these
 * pages.  Giving the pages back marks them dirty, which takes the page
 * lock and may sleep; a chain ends in softirq, so the pages are given back
 * from a work item.  The module's exit waits for them (prism_obuf_exit()).
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>
#include "outbuf.h"
#include "prism_net.h"

/**
 * struct prism_obuf - the pinned output buffer of a chain
 * @work: gives the pages back (prism_obuf_release())
 * @mm: whose pinned_vm the pages are charged to (a mmgrab() reference)
 * @len: bytes of the buffer
 * @first: offset of the buffer in its first page
 * @npages: pages pinned
 * @pages: them
 */
struct prism_obuf {
	struct work_struct	work;
	struct mm_struct	*mm;
	u32			len;
	u32			first;
	u32			npages;
	struct page		*pages[];
};

static struct workqueue_struct *prism_obuf_wq;

/* Give back pages[0..n) and their charge: process context. */
static void prism_obuf_unpin(struct prism_obuf *ob, u32 n)
{
	if (n)
		unpin_user_pages_dirty_lock(ob->pages, n, true);
	atomic64_sub(ob->npages, &ob->mm->pinned_vm);
	mmdrop(ob->mm);
	kvfree(ob);
}

static void prism_obuf_work(struct work_struct *work)
{
	struct prism_obuf *ob = container_of(work, struct prism_obuf, work);

	prism_obuf_unpin(ob, ob->npages);
}

/**
 * prism_obuf_pin() - pin a caller's output buffer
 * @addr: its user address
 * @len: its bytes, at least @need
 * @need: bytes of outputs the chain may return
 *
 * Context: Process context (sendmsg()), may sleep.
 * Return: the buffer, or ERR_PTR(): -EINVAL if @len is below @need, zero
 * or above PRISM_MAX_CHAIN_DATA, or the range wraps; -ENOMEM past
 * RLIMIT_MEMLOCK (without CAP_IPC_LOCK) or out of memory; -EFAULT if a page
 * is not mapped writable (or the caller has no memory map).
 */
struct prism_obuf *prism_obuf_pin(u64 addr, u64 len, u32 need)
{
	unsigned long npages, limit;
	struct prism_obuf *ob;
	int got;

	if (!len || len < need || len > PRISM_MAX_CHAIN_DATA ||
	    addr + len < addr)
		return ERR_PTR(-EINVAL);
	npages = ((addr & ~PAGE_MASK) + len + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (!current->mm)
		return ERR_PTR(-EFAULT);
	ob = kvzalloc(struct_size(ob, pages, npages), GFP_KERNEL_ACCOUNT);
	if (!ob)
		return ERR_PTR(-ENOMEM);
	ob->len = len;
	ob->first = addr & ~PAGE_MASK;
	ob->npages = npages;
	ob->mm = current->mm;
	mmgrab(ob->mm);
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (atomic64_add_return(npages, &ob->mm->pinned_vm) > limit &&
	    !capable(CAP_IPC_LOCK)) {
		prism_obuf_unpin(ob, 0);
		return ERR_PTR(-ENOMEM);
	}
	got = pin_user_pages_fast(addr & PAGE_MASK, npages, FOLL_WRITE,
				  ob->pages);
	if (got != npages) {
		prism_obuf_unpin(ob, max(got, 0));
		return ERR_PTR(got < 0 ? got : -EFAULT);
	}
	INIT_WORK(&ob->work, prism_obuf_work);
	return ob;
}

/**
 * prism_obuf_pages() - pages an output buffer holds pinned
 * @ob: the buffer
 *
 * Context: Any context.
 * Return: the count.
 */
u32 prism_obuf_pages(const struct prism_obuf *ob)
{
	return ob->npages;
}

/**
 * prism_obuf_release() - give an output buffer's pages back
 * @ob: the buffer (NULL: nothing)
 *
 * The pages are marked dirty and unpinned by a work item.
 *
 * Context: Any context.
 */
void prism_obuf_release(struct prism_obuf *ob)
{
	if (ob)
		queue_work(prism_obuf_wq, &ob->work);
}

/**
 * prism_obuf_write() - copy bytes into an output buffer
 * @ob: the buffer
 * @off: where, from its start; @off + @len within its length (the caller
 *       checked the answer against the chain)
 * @src: the bytes
 * @len: how many
 *
 * Context: Any context.
 */
void prism_obuf_write(struct prism_obuf *ob, u32 off, const void *src,
		      u32 len)
{
	u32 pos, n;

	if (WARN_ON_ONCE(off > ob->len || len > ob->len - off))
		return;
	while (len) {
		pos = ob->first + off;
		n = min_t(u32, len, PAGE_SIZE - offset_in_page(pos));
		memcpy_to_page(ob->pages[pos >> PAGE_SHIFT],
			       offset_in_page(pos), src, n);
		src += n;
		off += n;
		len -= n;
	}
}
EXPORT_SYMBOL_IF_KUNIT(prism_obuf_write);

/**
 * prism_obuf_write_skb() - copy bytes of a frame into an output buffer
 * @ob: the buffer
 * @off: where, as for prism_obuf_write()
 * @skb: the frame, linear or not
 * @skb_off: where the bytes start in @skb
 * @len: how many
 *
 * Context: Any context.
 */
void prism_obuf_write_skb(struct prism_obuf *ob, u32 off,
			  const struct sk_buff *skb, u32 skb_off, u32 len)
{
	struct skb_seq_state st;
	u32 done = 0, n;
	const u8 *p;

	skb_prepare_seq_read((struct sk_buff *)skb, skb_off, skb_off + len,
			     &st);
	while ((n = skb_seq_read(done, &p, &st))) {
		prism_obuf_write(ob, off + done, p, n);
		done += n;
	}
}
EXPORT_SYMBOL_IF_KUNIT(prism_obuf_write_skb);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * prism_obuf_of_pages() - an output buffer over kernel pages (KUnit)
 * @pages: @npages pages, the caller's; not pinned, not charged
 * @npages: how many
 * @first: offset of the buffer in the first page
 * @len: its bytes, within the pages
 *
 * Context: Process context.
 * Return: the buffer (free it with kvfree()), or NULL.
 */
VISIBLE_IF_KUNIT struct prism_obuf *prism_obuf_of_pages(struct page **pages,
							u32 npages, u32 first,
							u32 len)
{
	struct prism_obuf *ob;

	if (first >= PAGE_SIZE ||
	    (u64)first + len > (u64)npages << PAGE_SHIFT)
		return NULL;
	ob = kvzalloc(struct_size(ob, pages, npages), GFP_KERNEL);
	if (!ob)
		return NULL;
	memcpy(ob->pages, pages, npages * sizeof(*pages));
	ob->npages = npages;
	ob->first = first;
	ob->len = len;
	return ob;
}
EXPORT_SYMBOL_IF_KUNIT(prism_obuf_of_pages);
#endif

/**
 * prism_obuf_init() - set up output buffers (module init)
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int prism_obuf_init(void)
{
	prism_obuf_wq = alloc_workqueue("prism_obuf", WQ_UNBOUND, 0);
	return prism_obuf_wq ? 0 : -ENOMEM;
}

/**
 * prism_obuf_exit() - wait until every output buffer is given back
 *
 * Called at module exit, after the last socket is gone.
 *
 * Context: Process context.
 */
void prism_obuf_exit(void)
{
	destroy_workqueue(prism_obuf_wq);
}
