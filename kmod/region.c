// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM memory of a server endpoint: registered regions and free lists.
 *
 * Regions live in a hash table keyed by rkey.  The engine looks them up in
 * softirq under RCU; registration and deregistration run in process context
 * and change the table under mem->lock (spin_lock_bh: free lists are also
 * used from softirq).  A region's pages are released only after a grace
 * period, so no op that found the region can still be copying to or from
 * its pages.
 *
 * User regions are pinned with FOLL_LONGTERM (which refuses file-backed
 * pages of file systems that cannot take long-term pins, e.g. DAX) and
 * charged to the caller's user (user->locked_vm, as io_uring does for its
 * registered buffers) against RLIMIT_MEMLOCK, unless the caller has
 * CAP_IPC_LOCK: all processes of a user share one limit, across fork and
 * exec.  They are also counted in the process' mm->pinned_vm, for
 * /proc/PID/status.  The region holds references on the user and the mm
 * (mmgrab), so it can be released after the process' address space is
 * gone: socket release at exit runs after exit_mm().  Region and free-list
 * memory is charged to the caller's memory cgroup (__GFP_ACCOUNT).
 *
 * Free lists are rings of buffers inside one region, in an xarray by id.
 * Every posted buffer is stamped with an RCU grace-period cookie and ALLOC
 * only hands out buffers whose grace period has ended: an op that started
 * before the application posted a buffer (and may still be touching it,
 * e.g. through a stale pointer) has finished before the buffer is reused.
 * The ring is FIFO and cookies only grow, so only the head is checked.
 *
 * Lifetime rules: a region that a free list lies in cannot be deregistered
 * (-EBUSY) until the list is destroyed.  prism_mem_destroy() drops all of
 * them at once.
 */
#include <linux/kernel.h>
#include <linux/export.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/capability.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/cred.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>
#include "prism.h"
#include "keyed.h"

/* Free lists per socket. */
#define PRISM_MAX_FREELISTS	1024
/* Pages pinned per pin_user_pages_fast() call. */
#define PRISM_PIN_BATCH		512
/* Largest region, in pages: the page array stays below INT_MAX bytes. */
#define PRISM_REGION_MAX_PAGES	(INT_MAX / sizeof(struct page *))

/**
 * prism_mem_init() - initialise the memory of a server socket
 * @mem: memory of the socket: no regions, no free lists
 *
 * Context: Any context, before @mem is used.
 */
void prism_mem_init(struct prism_mem *mem)
{
	spin_lock_init(&mem->lock);
	hash_init(mem->regions);
	xa_init_flags(&mem->freelists, XA_FLAGS_ALLOC1);
	mem->pinned_pages = 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_mem_init);

static struct prism_region *prism_region_lookup(struct prism_mem *mem,
						u64 rkey)
{
	struct prism_region *r;

	hash_for_each_possible_rcu(mem->regions, r, node, rkey,
				   lockdep_is_held(&mem->lock))
		if (r->rkey == rkey)
			return r;
	return NULL;
}

/**
 * prism_region_find() - look up a region by rkey
 * @mem: memory of the socket
 * @rkey: the region's key
 *
 * The region stays valid as long as the caller stays in its RCU read-side
 * critical section (or holds @mem->lock).
 *
 * Context: Caller holds rcu_read_lock() (or @mem->lock).
 * Return: the region, or NULL if @mem has no region @rkey.
 */
struct prism_region *prism_region_find(struct prism_mem *mem, u64 rkey)
{
	return prism_region_lookup(mem, rkey);
}
EXPORT_SYMBOL_IF_KUNIT(prism_region_find);

/* Unpin (user regions) and free; no op may be using the region anymore. */
static void prism_region_free(struct prism_region *r)
{
	if (r->mm) {
		bool dirty = r->access & (PRISM_ACCESS_REMOTE_WRITE |
					  PRISM_ACCESS_REMOTE_ATOMIC);

		unpin_user_pages_dirty_lock(r->pages, r->npages, dirty);
		atomic64_sub(r->npages, &r->mm->pinned_vm);
		mmdrop(r->mm);
	}
	if (r->user) {
		atomic_long_sub(r->npages, &r->user->locked_vm);
		free_uid(r->user);
	}
	prism_region_keys_free(rcu_dereference_protected(r->keys, true));
	kvfree(r->pages);
	kfree(r);
}

/* Give r a fresh rkey and publish it. */
static void prism_region_insert(struct prism_mem *mem, struct prism_region *r)
{
	spin_lock_bh(&mem->lock);
	do {
		r->rkey = get_random_u64();
	} while (!r->rkey || prism_region_lookup(mem, r->rkey));
	hash_add_rcu(mem->regions, &r->node, r->rkey);
	if (r->mm)
		mem->pinned_pages += r->npages;
	spin_unlock_bh(&mem->lock);
}

static bool prism_access_ok(u32 access)
{
	return access && !(access & ~PRISM_ACCESS_ALL);
}

/**
 * prism_region_register_user() - pin user memory of current and register it
 * @mem: memory of the socket
 * @uaddr: first byte of the region in current's address space
 * @len: bytes in the region, > 0
 * @access: PRISM_ACCESS_* flags, at least one and no others
 * @keyed: a keyed region (PRISM_MR_KEYED): no chain reaches it before
 *         prism_region_rekey() installs its first key
 * @rkey: receives the new region's rkey (random, non-zero, unique in @mem)
 *
 * Pins the pages (FOLL_WRITE | FOLL_LONGTERM), charges them to the locked_vm
 * of current's user against RLIMIT_MEMLOCK (unless CAP_IPC_LOCK) and counts
 * them in mm->pinned_vm and @mem->pinned_pages.
 *
 * Context: Process context, may sleep; takes @mem->lock (BH disabled).
 * Return:
 * * 0: success;
 * * -EINVAL: @len is 0, @access is invalid, or the range wraps around;
 * * -EFAULT: current has no mm, the range is not user memory, or pages of
 *   it cannot be pinned;
 * * -ENOMEM: out of memory, region too large, or above RLIMIT_MEMLOCK;
 * * another errno of pin_user_pages_fast().
 */
int prism_region_register_user(struct prism_mem *mem, u64 uaddr, u64 len,
			       u32 access, bool keyed, u64 *rkey)
{
	struct mm_struct *mm = current->mm;
	unsigned long lock_limit, npages, pinned = 0;
	struct prism_region *r;
	u64 end;
	int ret;

	if (!len || !prism_access_ok(access))
		return -EINVAL;
	if (check_add_overflow(uaddr, len, &end) || PAGE_ALIGN(end) < end)
		return -EINVAL;
	if (!mm)
		return -EFAULT;
	if (!access_ok(u64_to_user_ptr(uaddr), len))
		return -EFAULT;
	npages = (PAGE_ALIGN(end) - (uaddr & PAGE_MASK)) >> PAGE_SHIFT;
	if (npages > PRISM_REGION_MAX_PAGES)
		return -ENOMEM;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->pages = kvcalloc(npages, sizeof(*r->pages), GFP_KERNEL_ACCOUNT);
	if (!r->pages) {
		kfree(r);
		return -ENOMEM;
	}
	r->start = uaddr;
	r->len = len;
	r->access = access;
	r->keyed = keyed;
	r->first_off = offset_in_page(uaddr);

	if (!capable(CAP_IPC_LOCK)) {
		struct user_struct *user = current_user();
		long cur, want;

		lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		cur = atomic_long_read(&user->locked_vm);
		do {
			want = cur + npages;
			if (want > lock_limit) {
				ret = -ENOMEM;
				goto out_free;
			}
		} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur,
						  want));
		r->user = get_uid(user);
	}
	atomic64_add(npages, &mm->pinned_vm);

	while (pinned < npages) {
		int want = min_t(unsigned long, npages - pinned,
				 PRISM_PIN_BATCH);

		ret = pin_user_pages_fast((uaddr & PAGE_MASK) +
					  pinned * PAGE_SIZE, want,
					  FOLL_WRITE | FOLL_LONGTERM,
					  r->pages + pinned);
		if (ret <= 0) {
			if (!ret)
				ret = -EFAULT;
			goto out_unpin;
		}
		pinned += ret;
		cond_resched();
	}
	r->npages = npages;
	mmgrab(mm);
	r->mm = mm;

	prism_region_insert(mem, r);
	*rkey = r->rkey;
	return 0;

out_unpin:
	unpin_user_pages(r->pages, pinned);
	atomic64_sub(npages, &mm->pinned_vm);
	if (r->user) {
		atomic_long_sub(npages, &r->user->locked_vm);
		free_uid(r->user);
	}
out_free:
	kvfree(r->pages);
	kfree(r);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(prism_region_register_user);

/**
 * prism_region_register_pages() - register kernel pages as a region (tests)
 * @mem: memory of the socket
 * @pages: the pages; the array is copied, the pages stay the caller's (not
 *         pinned, not freed) and must outlive the region
 * @npages: entries in @pages
 * @start: address the region presents for its first byte (its offset in a
 *         page is the offset of the region in pages[0])
 * @len: bytes in the region, > 0
 * @access: PRISM_ACCESS_* flags, at least one and no others
 * @rkey: receives the new region's rkey (random, non-zero, unique in @mem)
 *
 * Context: Process context, may sleep.
 * Return: 0 on success; -EINVAL if @pages is NULL, @npages, @len or @access
 * is invalid, @start + @len wraps or the region does not fit in the pages;
 * -ENOMEM if out of memory.
 */
int prism_region_register_pages(struct prism_mem *mem, struct page **pages,
				unsigned int npages, u64 start, u64 len,
				u32 access, u64 *rkey)
{
	struct prism_region *r;
	u64 end;

	if (!pages || !npages || !len || !prism_access_ok(access))
		return -EINVAL;
	if (check_add_overflow(start, len, &end))
		return -EINVAL;
	if (offset_in_page(start) + len > (u64)npages * PAGE_SIZE)
		return -EINVAL;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!r->pages) {
		kfree(r);
		return -ENOMEM;
	}
	memcpy(r->pages, pages, array_size(npages, sizeof(*pages)));
	r->start = start;
	r->len = len;
	r->access = access;
	r->npages = npages;
	r->first_off = offset_in_page(start);
	r->mm = NULL;

	prism_region_insert(mem, r);
	*rkey = r->rkey;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_region_register_pages);

/**
 * prism_region_deregister() - remove a region and release its pages
 * @mem: memory of the socket
 * @rkey: the region's key
 *
 * Waits for an RCU grace period, so that no op that found the region still
 * uses it, then unpins and uncharges its pages.
 *
 * Context: Process context, may sleep (synchronize_rcu()).
 * Return: 0 on success; -ENOENT if @mem has no region @rkey; -EBUSY if a
 * free list lies in it.
 */
int prism_region_deregister(struct prism_mem *mem, u64 rkey)
{
	struct prism_freelist *fl;
	struct prism_region *r;
	unsigned long id;

	spin_lock_bh(&mem->lock);
	r = prism_region_lookup(mem, rkey);
	if (!r) {
		spin_unlock_bh(&mem->lock);
		return -ENOENT;
	}
	xa_for_each(&mem->freelists, id, fl) {
		if (fl->rkey == rkey) {
			spin_unlock_bh(&mem->lock);
			return -EBUSY;
		}
	}
	hash_del_rcu(&r->node);
	if (r->mm)
		mem->pinned_pages -= r->npages;
	spin_unlock_bh(&mem->lock);

	/* Ops run under RCU in softirq: wait for those that found r. */
	synchronize_rcu();
	prism_region_free(r);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_region_deregister);

/**
 * prism_mem_destroy() - release all regions and free lists of a socket
 * @mem: memory of the socket
 *
 * Detaches everything at once, waits for an RCU grace period (in-flight ops
 * are done) and frees it; @mem is left without regions or free lists.
 *
 * Context: Process context, may sleep (synchronize_rcu()); socket release,
 * when nothing adds to @mem anymore.
 */
void prism_mem_destroy(struct prism_mem *mem)
{
	struct hlist_head dead[HASH_SIZE(mem->regions)];
	struct prism_freelist *fl;
	struct prism_region *r;
	struct hlist_node *tmp;
	unsigned long id;
	unsigned int i;

	/*
	 * Detach every hash chain whole: readers already walking a chain
	 * keep walking it unchanged, new readers find nothing.
	 */
	spin_lock_bh(&mem->lock);
	for (i = 0; i < HASH_SIZE(mem->regions); i++) {
		dead[i].first = mem->regions[i].first;
		if (dead[i].first)
			dead[i].first->pprev = &dead[i].first;
		WRITE_ONCE(mem->regions[i].first, NULL);
	}
	xa_for_each(&mem->freelists, id, fl) {
		xa_erase(&mem->freelists, id);
		kvfree_rcu(fl, rcu);
	}
	mem->pinned_pages = 0;
	mem->fl_big_bytes = 0;
	spin_unlock_bh(&mem->lock);

	synchronize_rcu();
	for (i = 0; i < ARRAY_SIZE(dead); i++)
		hlist_for_each_entry_safe(r, tmp, &dead[i], node)
			prism_region_free(r);
	xa_destroy(&mem->freelists);
}
EXPORT_SYMBOL_IF_KUNIT(prism_mem_destroy);

/**
 * prism_freelist_capacity_ok() - may a list of this many buffers serve a region
 * @region_len: bytes of the region
 * @buf_size: bytes of each buffer
 * @capacity: buffers the list would hold
 *
 * Context: Any context.
 * Return: true if @capacity is 1 to 65536, or up to 16,777,216 and no more
 * than @region_len / max(@buf_size, 16).
 */
bool prism_freelist_capacity_ok(u64 region_len, u32 buf_size, u32 capacity)
{
	u32 per = max_t(u32, buf_size, sizeof(struct prism_fl_entry));

	if (!capacity || capacity > PRISM_FL_MAX_CAPACITY)
		return false;
	return capacity <= PRISM_FL_SMALL_CAPACITY ||
	       capacity <= div_u64(region_len, per);
}
EXPORT_SYMBOL_IF_KUNIT(prism_freelist_capacity_ok);

/**
 * prism_freelist_create() - create a free list of buffers in a region
 * @mem: memory of the socket
 * @rkey: region the buffers lie in
 * @buf_size: bytes of each buffer, 1 to the region's length
 * @capacity: most buffers the list holds: 1 to 65536, or more (up to 2^24)
 *            when the region holds @capacity buffers of max(@buf_size, 16)
 *            bytes (prism_freelist_capacity_ok())
 * @id: receives the new list's id
 *
 * Context: Process context, may sleep; takes @mem->lock (BH disabled).
 * Return: 0 on success; -EINVAL if @buf_size or @capacity is out of range;
 * -ENOENT if @mem has no region @rkey; -ENOSPC if all free list ids of @mem
 * are in use; -ENOMEM if out of memory (the ring, 16 bytes per buffer, is
 * charged to the caller's memory cgroup) or, above 65536 buffers, if the
 * rings of @mem's lists that large would exceed the memory it pinned.
 */
int prism_freelist_create(struct prism_mem *mem, u64 rkey, u32 buf_size,
			  u32 capacity, u32 *id)
{
	u64 big = capacity > PRISM_FL_SMALL_CAPACITY ?
		  (u64)capacity * sizeof(struct prism_fl_entry) : 0;
	struct prism_freelist *fl;
	struct prism_region *r;
	int ret;

	if (!buf_size || !capacity || capacity > PRISM_FL_MAX_CAPACITY)
		return -EINVAL;
	/* The ring follows the list in the same allocation. */
	fl = kvzalloc(size_add(sizeof(*fl),
			       array_size(capacity, sizeof(*fl->ring))),
		      GFP_KERNEL_ACCOUNT);
	if (!fl)
		return -ENOMEM;
	fl->rkey = rkey;
	fl->buf_size = buf_size;
	fl->capacity = capacity;
	fl->ring = (struct prism_fl_entry *)(fl + 1);
	spin_lock_init(&fl->lock);

	spin_lock_bh(&mem->lock);
	r = prism_region_lookup(mem, rkey);
	if (!r)
		ret = -ENOENT;
	else if (buf_size > r->len ||
		 !prism_freelist_capacity_ok(r->len, buf_size, capacity))
		ret = -EINVAL;
	else if (mem->fl_big_bytes + big > mem->pinned_pages << PAGE_SHIFT)
		ret = -ENOMEM;
	else
		ret = xa_alloc(&mem->freelists, &fl->id, fl,
			       XA_LIMIT(1, PRISM_MAX_FREELISTS),
			       GFP_ATOMIC | __GFP_ACCOUNT);
	if (!ret)
		mem->fl_big_bytes += big;
	spin_unlock_bh(&mem->lock);
	if (ret) {
		kvfree(fl);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	*id = fl->id;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_freelist_create);

/**
 * prism_freelist_post() - add buffers to a free list
 * @mem: memory of the socket
 * @id: the free list
 * @addrs: target addresses of the buffers, each with the list's buf_size
 *         bytes inside its region
 * @count: entries in @addrs, > 0
 *
 * All or nothing.  ALLOC hands out the buffers only after an RCU grace
 * period from now: ops running now (that may still use them) are done by
 * then.
 *
 * Context: Process context; takes @mem->lock (BH disabled) and the list's
 * lock, does not sleep.
 * Return: 0 on success; -EINVAL if @count is 0 or an address is not a buffer
 * inside the region; -ENOENT if @mem has no free list @id (or its region is
 * gone); -ENOSPC if the list has less than @count free slots.
 */
int prism_freelist_post(struct prism_mem *mem, u32 id, const u64 *addrs,
			u32 count)
{
	struct prism_freelist *fl;
	struct prism_region *r;
	unsigned long cookie;
	u32 i, slot;
	int ret = 0;

	if (!count)
		return -EINVAL;
	/*
	 * Every op running now started before the buffers were posted; the
	 * buffers become allocatable once all of them have finished.  Taken
	 * before the locks: it may have to wake the grace-period kthread.
	 */
	cookie = start_poll_synchronize_rcu();

	spin_lock_bh(&mem->lock);
	fl = xa_load(&mem->freelists, id);
	r = fl ? prism_region_lookup(mem, fl->rkey) : NULL;
	if (!r) {
		ret = -ENOENT;
		goto out;
	}
	for (i = 0; i < count; i++) {
		u64 a = addrs[i];

		if (a < r->start || a - r->start > r->len ||
		    fl->buf_size > r->len - (a - r->start)) {
			ret = -EINVAL;
			goto out;
		}
	}
	spin_lock(&fl->lock);
	if (count > fl->capacity - fl->count) {
		ret = -ENOSPC;
	} else {
		for (i = 0; i < count; i++) {
			slot = (fl->head + fl->count) % fl->capacity;
			fl->ring[slot].addr = addrs[i];
			fl->ring[slot].rcu_cookie = cookie;
			fl->count++;
		}
	}
	spin_unlock(&fl->lock);
out:
	spin_unlock_bh(&mem->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(prism_freelist_post);

/**
 * prism_freelist_destroy() - remove a free list
 * @mem: memory of the socket
 * @id: the free list
 *
 * The buffers still in it are forgotten.  The list is freed after an RCU
 * grace period (ALLOC may still be taking from it); this does not wait.
 *
 * Context: Process context; takes @mem->lock (BH disabled).
 * Return: 0 on success; -ENOENT if @mem has no free list @id.
 */
int prism_freelist_destroy(struct prism_mem *mem, u32 id)
{
	struct prism_freelist *fl;

	spin_lock_bh(&mem->lock);
	fl = xa_erase(&mem->freelists, id);
	if (fl && fl->capacity > PRISM_FL_SMALL_CAPACITY)
		mem->fl_big_bytes -= (u64)fl->capacity * sizeof(*fl->ring);
	spin_unlock_bh(&mem->lock);
	if (!fl)
		return -ENOENT;
	/* ALLOC may still be popping from it under RCU. */
	kvfree_rcu(fl, rcu);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_freelist_destroy);

/**
 * prism_freelist_pop() - take a buffer from a free list (ALLOC)
 * @mem: memory of the socket
 * @id: the free list
 * @rkey: region the op names; must be the list's region
 * @len: bytes of data the buffer must hold
 * @addr: receives the buffer's target address
 *
 * Only the head of the list is taken, once the grace period it was posted
 * in has ended.
 *
 * Context: BH disabled, under rcu_read_lock() (the engine).
 * Return: a PRISM_S_* status (not an errno): PRISM_S_OK and *@addr set;
 * PRISM_S_NO_BUFFER if @mem has no list @id, it is empty or its head is not
 * ready yet; PRISM_S_AUTH if @rkey is not the list's region;
 * PRISM_S_INVALID if @len is larger than the buffers.  On error nothing is
 * taken.
 */
int prism_freelist_pop(struct prism_mem *mem, u32 id, u64 rkey, u32 len,
		       u64 *addr)
{
	struct prism_freelist *fl;
	struct prism_fl_entry *e;
	int ret = PRISM_S_NO_BUFFER;

	fl = xa_load(&mem->freelists, id);
	if (!fl)
		return PRISM_S_NO_BUFFER;
	if (fl->rkey != rkey)
		return PRISM_S_AUTH;
	if (len > fl->buf_size)
		return PRISM_S_INVALID;

	spin_lock(&fl->lock);
	if (fl->count) {
		e = &fl->ring[fl->head];
		if (poll_state_synchronize_rcu(e->rcu_cookie)) {
			*addr = e->addr;
			fl->head = (fl->head + 1) % fl->capacity;
			fl->count--;
			ret = PRISM_S_OK;
		}
	}
	spin_unlock(&fl->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(prism_freelist_pop);
