// SPDX-License-Identifier: MIT
/* PRISM-KV: encoding of slots, entries, the address file and messages. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_format.h"

/*
 * 32 + key + value must fit the class.  640 holds a 512-byte value with a
 * key of up to 96 bytes (the benchmark's case) without wasting 1024.  The
 * large classes hold a value of 2^n bytes with any key (2^n + 32 + 128),
 * the last one KV_MAX_ENTRY.
 */
const uint32_t kv_class_size[KV_NCLASSES] = {
	64, 128, 256, 640, 1024,
	2048 + 160, 4096 + 160, 8192 + 160, 16384 + 160, 32768 + 160,
	KV_MAX_ENTRY,
};

uint32_t kv_class_count(int cls, uint32_t nbufs)
{
	uint64_t n;

	if (kv_class_size[cls] <= 1024)
		return nbufs;
	n = (uint64_t)nbufs * 1024 / kv_class_size[cls];
	return n < 16 ? 16 : (uint32_t)n;
}

/* Final mixer: FNV-1a alone leaves the low bits weak for power-of-two tables. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	x ^= x >> 33;
	return x;
}

static uint64_t fnv_update(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t kv_hash64(const void *data, size_t len, uint64_t seed)
{
	return mix64(fnv_update(0xcbf29ce484222325ull ^ mix64(seed), data, len) ^ len);
}

uint64_t kv_key_slot(const void *key, size_t klen, uint64_t nslots)
{
	return kv_hash64(key, klen, 0x6b76) & (nslots - 1);
}

uint64_t kv_slot_check(uint64_t ptr, uint64_t bound, uint64_t version)
{
	return mix64(ptr ^ mix64(bound ^ mix64(version ^ 0x5a5a5a5a5a5a5a5aull)));
}

void kv_slot_encode(void *buf, const struct kv_slot *s)
{
	uint8_t *b = buf;

	pu_put_le64(b, s->ptr);
	pu_put_le64(b + 8, s->bound);
	pu_put_le64(b + 16, s->version);
	pu_put_le64(b + 24, s->check);
}

void kv_slot_decode(const void *buf, struct kv_slot *s)
{
	const uint8_t *b = buf;

	s->ptr = pu_get_le64(b);
	s->bound = pu_get_le64(b + 8);
	s->version = pu_get_le64(b + 16);
	s->check = pu_get_le64(b + 24);
}

int kv_class_for(uint32_t len)
{
	int i;

	for (i = 0; i < KV_NCLASSES; i++)
		if (len <= kv_class_size[i])
			return i;
	return -1;
}

int kv_check_sizes(size_t klen, size_t vlen)
{
	if (klen == 0)
		return -EINVAL;
	if (klen > KV_MAX_KEY || vlen > KV_MAX_VALUE)
		return -E2BIG;
	return 0;
}

int kv_entry_peek_len(const void *buf, size_t len)
{
	const uint8_t *e = buf;
	uint32_t klen, vlen;

	if (len < KV_ENTRY_HDR || pu_get_le32(e) != KV_ENTRY_MAGIC)
		return -EBADMSG;
	klen = pu_get_le16(e + 6);
	vlen = pu_get_le32(e + 8);
	if (klen > KV_MAX_KEY || vlen > KV_MAX_VALUE)
		return -EBADMSG;
	return (int)kv_entry_len(klen, vlen);
}

/* Checksum of an entry: everything but the checksum field itself. */
static uint64_t entry_checksum(const uint8_t *e, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv_update(h, e, 24);
	h = fnv_update(h, e + KV_ENTRY_HDR, len - KV_ENTRY_HDR);
	return mix64(h ^ len);
}

int kv_entry_encode(void *buf, size_t cap, unsigned int flags,
		    const void *key, size_t klen, const void *val, size_t vlen,
		    uint64_t version)
{
	uint8_t *e = buf;
	uint32_t len;

	/* The EMPTY entry has no key; every other entry must have one. */
	if (!(flags & KV_E_EMPTY) && kv_check_sizes(klen, vlen))
		return kv_check_sizes(klen, vlen);
	len = kv_entry_len(klen, vlen);
	if (len > cap || len > KV_MAX_ENTRY)
		return -ENOSPC;
	pu_put_le32(e, KV_ENTRY_MAGIC);
	pu_put_le16(e + 4, (uint16_t)flags);
	pu_put_le16(e + 6, (uint16_t)klen);
	pu_put_le32(e + 8, (uint32_t)vlen);
	pu_put_le32(e + 12, 0);
	pu_put_le64(e + 16, version);
	if (klen)
		memcpy(e + KV_ENTRY_HDR, key, klen);
	if (vlen)
		memcpy(e + KV_ENTRY_HDR + klen, val, vlen);
	pu_put_le64(e + 24, entry_checksum(e, len));
	return (int)len;
}

int kv_entry_decode(const void *buf, size_t len, struct kv_entry *out)
{
	const uint8_t *e = buf;
	uint32_t klen, vlen, flags;

	if (len < KV_ENTRY_HDR || pu_get_le32(e) != KV_ENTRY_MAGIC)
		return -EBADMSG;
	flags = pu_get_le16(e + 4);
	klen = pu_get_le16(e + 6);
	vlen = pu_get_le32(e + 8);
	if (flags != KV_E_LIVE && flags != KV_E_DELETED && flags != KV_E_EMPTY)
		return -EBADMSG;
	if (klen > KV_MAX_KEY || vlen > KV_MAX_VALUE ||
	    kv_entry_len(klen, vlen) != len)
		return -EBADMSG;
	if (pu_get_le64(e + 24) != entry_checksum(e, len))
		return -EBADMSG;
	out->flags = flags;
	out->version = pu_get_le64(e + 16);
	out->key = e + KV_ENTRY_HDR;
	out->klen = klen;
	out->val = e + KV_ENTRY_HDR + klen;
	out->vlen = vlen;
	return 0;
}

int kv_entry_key_is(const struct kv_entry *e, const void *key, size_t klen)
{
	return e->klen == klen && !memcmp(e->key, key, klen);
}

/* ---- address file ---- */

static const char *proto_name(enum kv_proto p)
{
	return p == KV_PROTO_PILAF ? "pilaf" : "prism";
}

int kv_info_format(const struct kv_info *in, char *buf, size_t cap)
{
	size_t off;
	int n, i;

	n = snprintf(buf, cap,
		     "proto=%s mac=%02x:%02x:%02x:%02x:%02x:%02x ep=%u rkey=0x%" PRIx64
		     " base=0x%" PRIx64 " len=%" PRIu64 " table=0x%" PRIx64
		     " slots=%" PRIu64 " empty=0x%" PRIx64 " pid=%d classes=",
		     proto_name(in->proto), in->mac[0], in->mac[1], in->mac[2],
		     in->mac[3], in->mac[4], in->mac[5], in->ep, in->rkey,
		     in->base, in->len, in->table, in->nslots, in->empty, in->pid);
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	off = (size_t)n;
	for (i = 0; i < KV_NCLASSES; i++) {
		n = snprintf(buf + off, cap - off, "%s%u:%u", i ? "," : "",
			     in->fl_size[i], in->fl_id[i]);
		if (n < 0 || (size_t)n >= cap - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	if (in->addr[0]) {
		n = snprintf(buf + off, cap - off, " addr=%s", in->addr);
		if (n < 0 || (size_t)n >= cap - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	if (in->keys[0]) {
		n = snprintf(buf + off, cap - off, " keys=%s", in->keys);
		if (n < 0 || (size_t)n >= cap - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	if (off + 2 > cap)
		return -ENOSPC;
	buf[off++] = '\n';
	buf[off] = 0;
	return (int)off;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || *end) ? -EINVAL : 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

static int parse_classes(const char *s, struct kv_info *out)
{
	int i;

	for (i = 0; i < KV_NCLASSES; i++) {
		unsigned int size, id;
		int used;

		if (sscanf(s, "%u:%u%n", &size, &id, &used) != 2)
			return -EINVAL;
		if (size != kv_class_size[i])
			return -EINVAL;
		out->fl_size[i] = size;
		out->fl_id[i] = id;
		s += used;
		if (i + 1 < KV_NCLASSES) {
			if (*s != ',')
				return -EINVAL;
			s++;
		}
	}
	return *s ? -EINVAL : 0;
}

int kv_info_parse(const char *line, struct kv_info *out)
{
	char buf[1024], *save = NULL, *word;
	unsigned int seen = 0;
	uint64_t v;

	if (strlen(line) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, line);
	memset(out, 0, sizeof(*out));
	for (word = strtok_r(buf, " \t\r\n", &save); word;
	     word = strtok_r(NULL, " \t\r\n", &save)) {
		char *val = strchr(word, '=');

		if (!val)
			return -EINVAL;
		*val++ = 0;
		if (!strcmp(word, "proto")) {
			if (!strcmp(val, "prism"))
				out->proto = KV_PROTO_PRISM;
			else if (!strcmp(val, "pilaf"))
				out->proto = KV_PROTO_PILAF;
			else
				return -EINVAL;
			seen |= 1;
		} else if (!strcmp(word, "mac")) {
			if (parse_mac(val, out->mac))
				return -EINVAL;
			seen |= 2;
		} else if (!strcmp(word, "addr")) {
			if (strlen(val) >= sizeof(out->addr))
				return -EINVAL;
			strcpy(out->addr, val);
		} else if (!strcmp(word, "keys")) {
			if (strlen(val) >= sizeof(out->keys))
				return -EINVAL;
			strcpy(out->keys, val);
		} else if (!strcmp(word, "classes")) {
			if (parse_classes(val, out))
				return -EINVAL;
			seen |= 4;
		} else {
			if (parse_u64(val, &v))
				return -EINVAL;
			if (!strcmp(word, "ep"))
				out->ep = (uint32_t)v, seen |= 8;
			else if (!strcmp(word, "rkey"))
				out->rkey = v, seen |= 16;
			else if (!strcmp(word, "base"))
				out->base = v, seen |= 32;
			else if (!strcmp(word, "len"))
				out->len = v;
			else if (!strcmp(word, "table"))
				out->table = v, seen |= 64;
			else if (!strcmp(word, "slots"))
				out->nslots = v, seen |= 128;
			else if (!strcmp(word, "empty"))
				out->empty = v, seen |= 256;
			else if (!strcmp(word, "pid"))
				out->pid = (int)v;
			/* unknown words are ignored: newer servers may add some */
		}
	}
	if (seen != 511 || !out->nslots || (out->nslots & (out->nslots - 1)))
		return -EINVAL;
	return 0;
}

int kv_info_load(const char *path, struct kv_info *out)
{
	char line[1024];
	int err = pu_read_first_line(path, line, sizeof(line));

	return err ? err : kv_info_parse(line, out);
}

/* ---- messages ---- */

int kv_rpc_req_encode(void *buf, size_t cap, const struct kv_rpc_req *r)
{
	uint8_t *b = buf;
	size_t len = KV_RPC_HDR + r->klen + r->vlen;

	if (len > cap)
		return -ENOSPC;
	pu_put_le32(b, KV_RPC_MAGIC);
	pu_put_le32(b + 4, r->op);
	pu_put_le32(b + 8, r->conditional);
	pu_put_le16(b + 12, (uint16_t)r->klen);
	pu_put_le16(b + 14, 0);
	pu_put_le32(b + 16, r->vlen);
	pu_put_le32(b + 20, 0);
	pu_put_le64(b + 24, r->req_id);
	pu_put_le64(b + 32, r->expected);
	memcpy(b + KV_RPC_HDR, r->key, r->klen);
	if (r->vlen)
		memcpy(b + KV_RPC_HDR + r->klen, r->val, r->vlen);
	return (int)len;
}

int kv_rpc_req_decode(const void *buf, size_t len, struct kv_rpc_req *r)
{
	const uint8_t *b = buf;

	if (len < KV_RPC_HDR || pu_get_le32(b) != KV_RPC_MAGIC)
		return -EBADMSG;
	r->op = pu_get_le32(b + 4);
	r->conditional = pu_get_le32(b + 8);
	r->klen = pu_get_le16(b + 12);
	r->vlen = pu_get_le32(b + 16);
	r->req_id = pu_get_le64(b + 24);
	r->expected = pu_get_le64(b + 32);
	if ((size_t)KV_RPC_HDR + r->klen + r->vlen != len)
		return -EBADMSG;
	r->key = b + KV_RPC_HDR;
	r->val = b + KV_RPC_HDR + r->klen;
	return 0;
}

void kv_rpc_reply_encode(void *buf, const struct kv_rpc_reply *r)
{
	uint8_t *b = buf;

	pu_put_le32(b, KV_RPC_REPLY_MAGIC);
	pu_put_le32(b + 4, (uint32_t)r->err);
	pu_put_le64(b + 8, r->req_id);
	pu_put_le64(b + 16, r->version);
}

int kv_rpc_reply_decode(const void *buf, size_t len, struct kv_rpc_reply *r)
{
	const uint8_t *b = buf;

	if (len != KV_RPC_REPLY_LEN || pu_get_le32(b) != KV_RPC_REPLY_MAGIC)
		return -EBADMSG;
	r->err = (int32_t)pu_get_le32(b + 4);
	r->req_id = pu_get_le64(b + 8);
	r->version = pu_get_le64(b + 16);
	return 0;
}
