/* SPDX-License-Identifier: MIT */
/*
 * PRISM-KV: layout of the server's memory and of the messages, shared by
 * the server, the client library and the unit tests.  Nothing here talks
 * to the network, so all of it is tested on the host.
 *
 * One registered region (one rkey: an indirect op needs the slot and the
 * entry it points to under the same rkey):
 *
 *   base + 0                  the static EMPTY entry (every unused slot points here)
 *   base + KV_TABLE_OFFSET    slots[nslots], 32 bytes each
 *   then per size class       nbufs buffers of class size bytes (free lists)
 *
 * Slot (32 bytes, four little-endian u64, 32-byte aligned so a 32-byte CAS
 * or READ is atomic in the module):
 *   ptr      address of the current entry (EMPTY entry when unused)
 *   bound    length of that entry: GET reads min(its read size, bound) bytes
 *   version  +1 on every successful update; 0 only while unused.  A PUT's
 *            CAS compares just this word (masked CAS), so a slot that
 *            changed in between, even back to the same buffer, fails it.
 *   check    Pilaf only: kv_slot_check() of the three others, because the
 *            Pilaf server writes slots with plain stores that a remote READ
 *            can tear.  PRISM-KV writes 0 (its CAS is atomic).
 *
 * Entry (immutable once published; 32-byte header, then key, then value):
 *   magic u32, flags u16, key_len u16, val_len u32, reserved u32,
 *   version u64 (the slot version it was installed with), checksum u64
 *   (kv_hash64 of the entry with the checksum field left out).
 *
 * Keys are immutable per slot: a slot leaves EMPTY once and then only ever
 * holds entries (live or tombstone) of the same key.  So a key lives in at
 * most one slot, found by linear probing from its hash, and DELETE installs
 * a tombstone entry that keeps the slot for that key.
 */
#ifndef KV_FORMAT_H
#define KV_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* pu_put_le64() ...: the region and messages are little-endian. */
#include "prism_util.h"

#define KV_SLOT_SIZE		32u
#define KV_TABLE_OFFSET		4096u
#define KV_ENTRY_HDR		32u
#define KV_MAX_KEY		128u
/* Largest value, whatever the key (a PUT's ALLOC and a GET's READ carry it). */
#define KV_MAX_VALUE		65536u
/* Largest entry: header, the largest key and the largest value. */
#define KV_MAX_ENTRY		(KV_ENTRY_HDR + KV_MAX_KEY + KV_MAX_VALUE)
/*
 * What a GET reads first (bounded READ of the slot's entry): entries up to
 * this size come back in one round trip and fit one 1500-byte frame.  A
 * longer entry is read again at its length, which the client then keeps
 * as its first read size (kv_client.c).
 */
#define KV_GET_FIRST		1024u

#define KV_ENTRY_MAGIC		0x314b5650u	/* "PVK1" */
#define KV_E_LIVE		1u
#define KV_E_DELETED		2u
#define KV_E_EMPTY		4u

/* Small classes (<= 1024), then one per power of two of value + 160. */
#define KV_NCLASSES		11
extern const uint32_t kv_class_size[KV_NCLASSES];

/* 64-bit hash of bytes (FNV-1a with a final avalanche), seedable. */
uint64_t kv_hash64(const void *data, size_t len, uint64_t seed);
/* Home slot of a key in a table of nslots (a power of two). */
uint64_t kv_key_slot(const void *key, size_t klen, uint64_t nslots);
uint64_t kv_slot_check(uint64_t ptr, uint64_t bound, uint64_t version);

struct kv_slot {
	uint64_t ptr, bound, version, check;
};
void kv_slot_encode(void *buf, const struct kv_slot *s);
void kv_slot_decode(const void *buf, struct kv_slot *s);

/* Smallest size class holding len bytes, or -1. */
int kv_class_for(uint32_t len);

/* 0 if a key/value of these lengths may be stored, else -EINVAL / -E2BIG. */
int kv_check_sizes(size_t klen, size_t vlen);

/*
 * Buffers of class cls for a server given nbufs per class: nbufs for the
 * small classes, then the same nbufs KiB of memory per large class (at
 * least 16 buffers).
 */
uint32_t kv_class_count(int cls, uint32_t nbufs);

/*
 * Length of the entry whose first len (>= KV_ENTRY_HDR) bytes are at buf,
 * from its header, or -EBADMSG when the header is not an entry's.
 */
int kv_entry_peek_len(const void *buf, size_t len);

/* Entry of these lengths, in bytes. */
static inline uint32_t kv_entry_len(size_t klen, size_t vlen)
{
	return (uint32_t)(KV_ENTRY_HDR + klen + vlen);
}

/* Encode an entry into buf (cap bytes).  Returns its length or -errno. */
int kv_entry_encode(void *buf, size_t cap, unsigned int flags,
		    const void *key, size_t klen, const void *val, size_t vlen,
		    uint64_t version);

/* View of a decoded entry; key and val point into the decoded buffer. */
struct kv_entry {
	unsigned int	flags;
	uint64_t	version;
	const uint8_t	*key;
	uint32_t	klen;
	const uint8_t	*val;
	uint32_t	vlen;
};

/*
 * Decode len bytes at buf.  Returns 0, or -EBADMSG when the bytes are not
 * one consistent entry (wrong magic, lengths, checksum): a torn or
 * recycled read.
 */
int kv_entry_decode(const void *buf, size_t len, struct kv_entry *e);

/* Does entry e hold key? */
int kv_entry_key_is(const struct kv_entry *e, const void *key, size_t klen);

/* ---- server address file (one line of key=value words) ---- */

enum kv_proto { KV_PROTO_PRISM = 1, KV_PROTO_PILAF = 2 };

struct kv_info {
	enum kv_proto	proto;
	uint8_t		mac[6];
	uint32_t	ep;
	/* UDP: "IP:PORT/EP" (prism_parse_addr()); empty: Ethernet (mac, ep) */
	char		addr[80];
	uint64_t	rkey;
	uint64_t	base;		/* region start */
	uint64_t	len;		/* region length */
	uint64_t	table;		/* address of slot 0 */
	uint64_t	nslots;		/* power of two */
	uint64_t	empty;		/* address of the EMPTY entry */
	uint32_t	fl_id[KV_NCLASSES];	/* free list per class (PRISM) */
	uint32_t	fl_size[KV_NCLASSES];
	int		pid;		/* server process */
	/* a keyed region: the key socket (pu_keys.h); empty: plain */
	char		keys[108];
};

/* Format into buf (cap bytes, newline-terminated).  Returns length or -ENOSPC. */
int kv_info_format(const struct kv_info *in, char *buf, size_t cap);
/* Parse a line written by kv_info_format().  Returns 0 or -EINVAL. */
int kv_info_parse(const char *line, struct kv_info *out);
int kv_info_load(const char *path, struct kv_info *out);

/* ---- messages (SEND) ---- */

/* Client -> PRISM-KV server: buffers replaced in slots, to recycle. */
#define KV_RECYCLE_MAGIC	0x4352564bu	/* "KVRC" */
#define KV_RECYCLE_HDR		8u
#define KV_RECYCLE_MAX		128u	/* addresses per message */

/* Client -> Pilaf server: request; server -> client: reply. */
#define KV_RPC_MAGIC		0x5152564bu	/* "KVRQ" */
#define KV_RPC_REPLY_MAGIC	0x5052564bu	/* "KVRP" */
#define KV_RPC_HDR		40u
#define KV_RPC_REPLY_LEN	24u

enum kv_rpc_op { KV_RPC_PUT = 1, KV_RPC_DELETE = 2 };

struct kv_rpc_req {
	uint32_t	op;		/* enum kv_rpc_op */
	uint32_t	conditional;	/* 1: only if the slot version == expected */
	uint64_t	req_id;
	uint64_t	expected;
	const uint8_t	*key;
	uint32_t	klen;
	const uint8_t	*val;
	uint32_t	vlen;
};

struct kv_rpc_reply {
	int32_t		err;		/* 0 or -errno */
	uint64_t	req_id;
	uint64_t	version;	/* slot version after the op */
};

int kv_rpc_req_encode(void *buf, size_t cap, const struct kv_rpc_req *r);
int kv_rpc_req_decode(const void *buf, size_t len, struct kv_rpc_req *r);
void kv_rpc_reply_encode(void *buf, const struct kv_rpc_reply *r);
int kv_rpc_reply_decode(const void *buf, size_t len, struct kv_rpc_reply *r);

#endif /* KV_FORMAT_H */
