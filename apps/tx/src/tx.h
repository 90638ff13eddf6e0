/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRISM-TX: serializable transactions with one-sided commit (Burke et al.,
 * SOSP'21, section on PRISM-TX), plus a FaRM-style OCC baseline.
 *
 * Keys 0..nkeys-1; key k lives on shard k % nshards in slot k / nshards.
 * Every value is a 64-bit number (a bank balance, a YCSB-T counter) stored
 * in a value of the store's size, vsize bytes (8..TX_MAX_VALUE, the shard
 * server's --value-size, default 8): the number in the first 8 bytes, then
 * filler that tx_value_fill() derives from (key, version, number), so that
 * a reader checks every byte (tx_value_check()) and a value read partly
 * from one version and partly from another, or from a buffer recycled
 * meanwhile, is seen as torn and read again.
 *
 * PRISM-TX slot (40 bytes; words 0..3 and words 1..4 are each one atomic
 * unit for a 32-byte CAS or READ):
 *
 *	word 0  PR   highest timestamp of a validated (prepared) read
 *	word 1  PW   timestamp of the latest prepared write
 *	word 2  C    timestamp of the committed version (or of an aborted
 *		     writer that raised it, see below)
 *	word 3  ptr  address of the committed version's buffer
 *	word 4  pptr address of the pending write's buffer (0: none)
 *
 *	version buffer (tx_buf_size(vsize) bytes, from the shard's ALLOCATE
 *	free list):
 *	word 0  ts   timestamp of the transaction that wrote it (0: initial)
 *	then    value (vsize bytes, padded to 8)
 *
 * Invariant: PW >= C.  PW == C means no write is pending on the key; at
 * most one write is pending at a time (write validation requires PW == C),
 * so exactly one transaction may end the pending state, by installing its
 * version or by raising C to its own timestamp (abort), and an aborted
 * writer does not hide anyone's write.  pptr is set only while a write is
 * pending (by its prepare) and cleared by whatever ends it.
 *
 * Ordered CAS compares little-endian integers, the last byte most
 * significant: over words 0..2 the number is (C, PW, PR) in lexicographic
 * order.  With compare value (PR:=TS, PW:=RC, C:=RC), where RC is the C
 * the transaction observed when it read the key:
 *	(TS, RC, RC) > (PR, PW, C)  <=>  C == RC && PW == RC && TS > PR
 * because C >= RC and PW >= C always hold.  That single GT CAS is both
 * checks of the paper's validation: nobody committed or prepared a write
 * since our read, and no later reader validated (for writes).
 *
 * Decision records (recovery from a client that dies between prepare and
 * commit): each shard holds TX_MAX_CID 16-byte records {ts, state}, one
 * per client id.  Transaction TS of client cid is decided in the record of
 * cid on its home shard, tx_home_shard(TS): the client picks TS so that
 * the home is the shard of its first written key, and the decision then
 * travels in the same chain as that shard's installs.
 *
 * Chains (one per shard per phase; ops of different keys are independent):
 *
 *  EXECUTE, per key:  READ slot (32)            -> PR, PW, C, ptr
 *                     READ INDIRECT slot.ptr    -> buffer ts, value
 *     (the buffer is consistent with the slot iff buffer.ts <= slot.C: a
 *     version installed between the two ops has ts > the C we saw)
 *  PREPARE, read-only key: CAS GT 24 B at slot, compare (TS,RC,RC),
 *     swap PR := TS.  A failure whose old value shows C == PW == RC and
 *     PR >= TS also validates (a later reader already protects us).
 *  PREPARE, written key (3 ops): the same CAS, swap PW := TS;
 *     ALLOC {TS, value} -> slot.pptr (REDIRECT, CONDITIONAL);
 *     READ slot.pptr (CONDITIONAL): the new buffer's address.
 *  DECIDE (first op of the home shard's install chain, when every
 *     prepare validated): CAS GT 16 B at the record, compare ts := TS
 *     (mask ts), swap {TS, COMMIT}.  It fails iff the record already
 *     holds TS (our own earlier attempt: COMMIT; a recoverer: ABORT).
 *  INSTALL, written key: CAS EQ 32 B at slot.PW, compare PW == TS and
 *     C == RC, swap {C, ptr, pptr} := {TS, pptr, 0}; CONDITIONAL after
 *     DECIDE.  Old value back: the replaced buffer to recycle.
 *  ABORT, written key whose prepare ran or may have run: CAS EQ 32 B at
 *     slot.PW, compare PW == TS and C == RC, swap {C, pptr} := {TS, 0};
 *     the old pptr (if any) goes back to the free list.  Raising C to PW
 *     ends the pending state; readers of the old version then fail
 *     validation, which is safe.
 *  Replaced buffers go back to the shard server in SEND messages; it posts
 *  them to the free list (allocatable after a grace period).  Only the
 *  party whose INSTALL or ABORT swapped recycles, so no buffer is posted
 *  twice.
 *
 * RECOVERY, by any client that finds a write pending (PW != C) for longer
 * than its lease (tx_client -L, measured from the clock in PW): DECIDE
 * with swap {PW, ABORT} at PW's record.  If it swapped, or the record
 * holds {PW, ABORT}, the write is aborted; if it holds {PW, COMMIT} it is
 * installed (READ 32 B at slot.PW for pptr, then INSTALL); if the record
 * holds a later timestamp, the client of PW went on to a later
 * transaction, which it does only once PW is installed or aborted at every
 * key it prepared, so a write still pending under PW is a prepare that
 * ran late, of a transaction that did not commit: it is aborted.  The
 * argument needs a client id used by one client only (a restarted client
 * takes a new one).  See apps/tx/README.md.
 *
 * FaRM-style slot (tx_farm_slot_size(vsize) bytes, at least 32): word 0
 * head = version << 1 | locked, then the value (vsize bytes, padded to 8),
 * then tail = version << 1; the server writes value, tail, head in that
 * order, a reader accepts a read of head..tail only when head == tail
 * (unlocked) and the value's filler matches (key, version, number): a read
 * of more than 32 bytes is not atomic, and the filler shows a value torn
 * by a concurrent commit, as FaRM's per-cache-line versions would.  Lock,
 * commit and unlock are SEND RPCs.
 */
#ifndef TX_H
#define TX_H

#include <stdint.h>
#include <string.h>

#define TX_MAX_SHARDS	8
#define TX_SLOT_SIZE	40
#define TX_MAX_KEYS_TX	32	/* keys one transaction touches */
#define TX_MIN_VALUE	8	/* the number */
#define TX_MAX_VALUE	4096
#define TX_DEF_VALUE	8

static inline unsigned int tx_pad8(unsigned int n)
{
	return (n + 7) & ~7u;
}

/* PRISM-TX version buffer: writer timestamp, value. */
static inline unsigned int tx_buf_size(unsigned int vsize)
{
	return 8 + tx_pad8(vsize);
}

/* FaRM slot: head, value, tail (the stride of the slot array: >= 32). */
static inline unsigned int tx_farm_read_len(unsigned int vsize)
{
	return 16 + tx_pad8(vsize);
}

static inline unsigned int tx_farm_slot_size(unsigned int vsize)
{
	return tx_farm_read_len(vsize) < 32 ? 32 : tx_farm_read_len(vsize);
}

/* Offsets of the words of a PRISM-TX slot. */
#define TX_PR	0
#define TX_PW	8
#define TX_C	16
#define TX_PTR	24
#define TX_PPTR	32

/* Decision records: TX_MAX_CID of them per shard, {ts, state}. */
#define TX_MAX_CID	65536u
#define TX_DEC_SIZE	16
enum tx_decision { TX_DEC_NONE = 0, TX_DEC_COMMIT = 1, TX_DEC_ABORT = 2 };

/* Timestamps: microseconds of a loosely synchronized clock, client id below. */
#define TX_CID_BITS	16
#define TX_CID_MASK	((1ULL << TX_CID_BITS) - 1)

static inline uint64_t tx_ts_make(uint64_t us, unsigned int cid)
{
	return (us << TX_CID_BITS) | (cid & TX_CID_MASK);
}

static inline uint64_t tx_ts_us(uint64_t ts)
{
	return ts >> TX_CID_BITS;
}

static inline unsigned int tx_ts_cid(uint64_t ts)
{
	return (unsigned int)(ts & TX_CID_MASK);
}

/*
 * Next timestamp of client cid: the clock now_us, but strictly above this
 * client's previous timestamp and above every version it read (floor), so
 * a transaction is ordered after what it observed even if clocks drift.
 */
static inline uint64_t tx_ts_next(uint64_t now_us, unsigned int cid,
				  uint64_t last, uint64_t floor)
{
	uint64_t us = now_us;

	if (last && us <= tx_ts_us(last))
		us = tx_ts_us(last) + 1;
	if (floor && us <= tx_ts_us(floor))
		us = tx_ts_us(floor) + 1;
	return tx_ts_make(us, cid);
}

/* The shard holding the decision record of the transaction of timestamp ts. */
static inline unsigned int tx_home_shard(uint64_t ts, unsigned int nshards)
{
	return (unsigned int)(tx_ts_us(ts) % nshards);
}

/* tx_ts_next(), moved up to the first timestamp whose home shard is home. */
static inline uint64_t tx_ts_next_home(uint64_t now_us, unsigned int cid,
				       uint64_t last, uint64_t floor,
				       unsigned int home, unsigned int nshards)
{
	uint64_t us = tx_ts_us(tx_ts_next(now_us, cid, last, floor));

	us += (home + nshards - (unsigned int)(us % nshards)) % nshards;
	return tx_ts_make(us, cid);
}

static inline void tx_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t tx_get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* splitmix64 finalizer. */
static inline uint64_t tx_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Filler word i (i >= 1) of the value of key at version ver holding val. */
static inline uint64_t tx_filler(uint32_t key, uint64_t ver, uint64_t val,
				 unsigned int i)
{
	return tx_mix64(tx_mix64(tx_mix64(ver) ^ val) ^ ((uint64_t)key << 16 | i));
}

/* The vsize bytes at p: val, then the filler of (key, ver, val). */
static inline void tx_value_fill(unsigned char *p, unsigned int vsize,
				 uint32_t key, uint64_t ver, uint64_t val)
{
	unsigned char w[8];

	tx_put64(p, val);
	for (unsigned int off = 8; off < vsize; off += 8) {
		unsigned int n = vsize - off < 8 ? vsize - off : 8;

		tx_put64(w, tx_filler(key, ver, val, off / 8));
		memcpy(p + off, w, n);
	}
}

/* 1 when the vsize bytes at p are a whole value of key at version ver. */
static inline int tx_value_check(const unsigned char *p, unsigned int vsize,
				 uint32_t key, uint64_t ver)
{
	uint64_t val = tx_get64(p);
	unsigned char w[8];

	for (unsigned int off = 8; off < vsize; off += 8) {
		unsigned int n = vsize - off < 8 ? vsize - off : 8;

		tx_put64(w, tx_filler(key, ver, val, off / 8));
		if (memcmp(p + off, w, n))
			return 0;
	}
	return 1;
}

/* Operands of one CAS (len bytes each). */
struct tx_cas_operands {
	unsigned int len;
	unsigned char cmp[32], swap[32], cmask[32], smask[32];
};

enum tx_validate_kind { TX_VALIDATE_READ, TX_VALIDATE_WRITE };

/* Prepare CAS (GT, 24 bytes at the slot): see the comment at the top. */
static inline void tx_prepare_operands(struct tx_cas_operands *o,
				       enum tx_validate_kind kind,
				       uint64_t ts, uint64_t rc)
{
	unsigned int word = kind == TX_VALIDATE_READ ? TX_PR : TX_PW;

	memset(o, 0, sizeof(*o));
	o->len = 24;
	tx_put64(o->cmp + TX_PR, ts);
	tx_put64(o->cmp + TX_PW, rc);
	tx_put64(o->cmp + TX_C, rc);
	memset(o->cmask, 0xff, 24);
	tx_put64(o->swap + word, ts);
	memset(o->smask + word, 0xff, 8);
}

/*
 * Whether a failed read-validation CAS still validates, from the old
 * value it returned: nothing committed or pending since our read, and PR
 * already at or above our timestamp.
 */
static inline int tx_read_ok_from_old(const unsigned char old[24],
				      uint64_t ts, uint64_t rc)
{
	return tx_get64(old + TX_C) == rc && tx_get64(old + TX_PW) == rc &&
	       tx_get64(old + TX_PR) >= ts;
}

/* Offsets of words 1..4 from slot + TX_PW, where INSTALL and ABORT apply. */
#define TX_AT_PW(off)	((off) - TX_PW)

/*
 * End our pending write (CAS EQ, 32 bytes at slot + TX_PW): compare PW ==
 * ts and C == rc.  install: swap {C, ptr, pptr} := {ts, pptr, 0}; else
 * (abort) swap {C, pptr} := {ts, 0}.
 */
static inline void tx_end_operands(struct tx_cas_operands *o, uint64_t ts,
				   uint64_t rc, int install, uint64_t pptr)
{
	memset(o, 0, sizeof(*o));
	o->len = 32;
	tx_put64(o->cmp + TX_AT_PW(TX_PW), ts);
	tx_put64(o->cmp + TX_AT_PW(TX_C), rc);
	memset(o->cmask + TX_AT_PW(TX_PW), 0xff, 16);
	tx_put64(o->swap + TX_AT_PW(TX_C), ts);
	memset(o->smask + TX_AT_PW(TX_C), 0xff, 8);
	if (install) {
		tx_put64(o->swap + TX_AT_PW(TX_PTR), pptr);
		memset(o->smask + TX_AT_PW(TX_PTR), 0xff, 8);
	}
	memset(o->smask + TX_AT_PW(TX_PPTR), 0xff, 8);	/* pptr := 0 */
}

/*
 * DECIDE (CAS GT, 16 bytes at a decision record): record {ts, state} if
 * the record holds an older timestamp.
 */
static inline void tx_decide_operands(struct tx_cas_operands *o, uint64_t ts,
				      enum tx_decision state)
{
	memset(o, 0, sizeof(*o));
	o->len = TX_DEC_SIZE;
	tx_put64(o->cmp, ts);
	memset(o->cmask, 0xff, 8);
	tx_put64(o->swap, ts);
	tx_put64(o->swap + 8, state);
	memset(o->smask, 0xff, 16);
}

/* FaRM RPCs (SEND payloads). */
#define FARM_MAGIC	0x4641524dU
enum farm_type { FARM_LOCK = 1, FARM_COMMIT = 2, FARM_UNLOCK = 3 };
#define FARM_MAX_ENTRIES 32

struct farm_entry {
	uint32_t slot;
	uint32_t pad;
	uint64_t arg;		/* LOCK: expected version; COMMIT: new value */
};

struct farm_req {
	uint32_t magic;
	uint8_t type;
	uint8_t n;
	uint16_t pad;
	uint64_t seq;		/* echoed in the reply */
	uint64_t txid;		/* lock owner */
	struct farm_entry e[FARM_MAX_ENTRIES];
};

struct farm_rep {
	uint32_t magic;
	uint8_t type;
	uint8_t ok;
	uint16_t pad;
	uint64_t seq;
};

/* Recycling message to a PRISM-TX shard: "RCYC" then buffer addresses. */
#define TX_RECYCLE_MAGIC 0x52435943U
#define TX_RECYCLE_MAX	120

#endif /* TX_H */
