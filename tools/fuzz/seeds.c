// SPDX-License-Identifier: GPL-2.0
/*
 * Seed corpus for prism_fuzz: well-formed chains over the fuzzer's regions
 * (fuzz.h), one file per chain, written to the directory given as argv[1].
 * Covers every opcode and the flag combinations a real client uses; the
 * fuzzer mutates from there.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kmod/prism.h"
#include "fuzz.h"

static const char *seed_dir;
static unsigned int seed_count;
static struct fz_model cur;
static uint8_t data_pool[1 << 16];
static size_t pool_used;

static uint64_t R(unsigned int ri, uint64_t off)
{
	return fz_regions[ri].start + off;
}

static void begin(void)
{
	memset(&cur, 0, sizeof(cur));
	memset(cur.hdr.slot, 0xff, sizeof(cur.hdr.slot));
	pool_used = 0;
}

/* Store v at byte off of region ri before the chain runs. */
static struct fz_poke *poke(unsigned int ri, uint16_t off, uint64_t v)
{
	struct fz_poke *p = &cur.pokes[cur.npokes++];

	p->region = (uint8_t)ri;
	p->off = off;
	p->val = v;
	return p;
}

/* A pointer pair {ptr, bound} at off. */
static void poke_pair(unsigned int ri, uint16_t off, uint64_t ptr,
		      uint32_t bound)
{
	struct fz_poke *p = poke(ri, off, ptr);

	p->kind = FZ_POKE_PAIR;
	p->bound = bound;
}

/* Append an op on region ri; inline data filled with fill (masks: 0xff). */
static struct prism_op *op(unsigned int ri, uint8_t opcode, uint16_t flags,
			   uint32_t len, uint64_t addr)
{
	struct fz_op *o = &cur.ops[cur.nops];
	uint8_t *d = data_pool + pool_used;
	uint64_t i, dl;

	if (cur.nops < 16)
		cur.hdr.slot[cur.nops] = (uint8_t)ri;
	cur.nops++;
	memset(o, 0, sizeof(*o));
	o->op.opcode = opcode;
	o->op.flags = flags;
	o->op.len = len;
	o->op.addr = addr;
	o->op.rkey = fz_regions[ri].rkey;
	dl = prism_op_data_len(&o->op);
	o->op.data_len = (uint32_t)dl;
	for (i = 0; i < dl; i++)
		d[i] = (opcode == PRISM_OP_CAS && i >= dl - 2 * len) ?
		       0xff : (uint8_t)(i + 1);
	o->data = d;
	o->dlen = (uint32_t)dl;
	pool_used += dl;
	return &o->op;
}

/* CAS whose compare value is the region's initial pattern at off. */
static struct prism_op *cas_eq(unsigned int ri, uint32_t len, uint64_t off)
{
	struct prism_op *o = op(ri, PRISM_OP_CAS, 0, len, R(ri, off));
	uint8_t *d = (uint8_t *)cur.ops[cur.nops - 1].data;
	uint32_t i;

	/* the target's pattern: byte b is b * 7 + ri * 31 + 1 */
	for (i = 0; i < len; i++)
		d[i] = (uint8_t)((off + i) * 7 + ri * 31 + 1);
	return o;
}

static void end(void)
{
	static uint8_t buf[1 << 17];
	char path[4096];
	size_t n;
	FILE *f;

	cur.hdr.nops = (uint8_t)cur.nops;
	cur.hdr.cap_delta = 0;
	n = fz_serialize(&cur, buf, sizeof(buf));
	if (!n) {
		fprintf(stderr, "seeds: seed %u too big\n", seed_count);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/seed-%03u", seed_dir, seed_count++);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const uint64_t r0end = fz_region_end(0);
	struct prism_op *o;
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	seed_dir = argv[1];

	/* plain READs: aligned word, across a line, across a page */
	begin(); op(0, PRISM_OP_READ, 0, 8, R(0, 0)); end();
	begin(); op(1, PRISM_OP_READ, 0, 32, R(1, 0xe8)); end();
	begin(); op(1, PRISM_OP_READ, 0, 0x200, R(1, 0)); end();
	begin(); op(2, PRISM_OP_READ, 0, 64, R(2, 0x100)); end();

	/* WRITEs: small, long across pages, then read back */
	begin();
	op(0, PRISM_OP_WRITE, 0, 8, R(0, 16));
	op(1, PRISM_OP_WRITE, 0, 300, R(1, 0x80));
	op(1, PRISM_OP_READ, PRISM_F_CONDITIONAL, 300, R(1, 0x80));
	end();

	/* CAS: 8-byte aligned (cmpxchg), 16 bytes across a line, failing */
	begin(); cas_eq(0, 8, 64); end();
	begin(); cas_eq(1, 16, 0x38); end();
	begin();
	o = op(0, PRISM_OP_CAS, 0, 8, R(0, 128));
	o->cas_mode = PRISM_CAS_GT;
	op(0, PRISM_OP_WRITE, PRISM_F_CONDITIONAL, 8, R(0, 136));
	end();

	/* CAS with operands in scratch, output redirected */
	begin();
	op(0, PRISM_OP_READ, PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH, 16,
	   R(0, 256))->redirect = 0;
	o = op(0, PRISM_OP_CAS, PRISM_F_CMP_INDIRECT | PRISM_F_SWAP_INDIRECT |
	       PRISM_F_ARG_SCRATCH | PRISM_F_REDIRECT, 8, R(0, 256));
	o->arg_addr = 0;
	o->swap_addr = 8;
	o->redirect = R(0, 512);
	end();

	/* ALLOC, address to scratch, WRITE through it */
	begin();
	o = op(0, PRISM_OP_ALLOC, PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH,
	       16, 1);
	o->redirect = 32;
	op(0, PRISM_OP_WRITE, PRISM_F_INDIRECT | PRISM_F_ADDR_SCRATCH |
	   PRISM_F_CONDITIONAL, 8, 32);
	end();
	begin();
	for (i = 0; i < 4; i++)
		op(1, PRISM_OP_ALLOC, 0, 200, 2);
	op(0, PRISM_OP_ALLOC, 0, 0, 4);
	op(1, PRISM_OP_ALLOC, 0, 8, 5);
	end();

	/* SEND, with and without data, conditional */
	begin();
	op(0, PRISM_OP_SEND, 0, 5, 0);
	op(0, PRISM_OP_SEND, PRISM_F_CONDITIONAL, 0, 0);
	end();

	/* REKEY of a plain region (the fuzzed ones are): INVALID */
	begin();
	op(0, PRISM_OP_REKEY, 0, PRISM_KEY_SIZE, 300);
	op(0, PRISM_OP_READ, PRISM_F_CONDITIONAL, 8, R(0, 0));
	end();

	/* indirect and bounded READs through pointers planted in memory */
	begin();
	poke_pair(0, 64, R(0, 1000), 24);
	op(0, PRISM_OP_READ, PRISM_F_INDIRECT | PRISM_F_BOUNDED, 32,
	   R(0, 64));
	op(0, PRISM_OP_READ, PRISM_F_INDIRECT, 16, R(0, 64));
	end();
	begin();
	poke_pair(1, 0, R(1, 0x1000), 100);
	op(1, PRISM_OP_READ, PRISM_F_INDIRECT | PRISM_F_BOUNDED, 64,
	   R(1, 0));
	end();

	/* pointer chase through scratch: READ a pointer, READ through it */
	begin();
	poke(0, 0, r0end - 64);
	op(0, PRISM_OP_READ, PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH, 8,
	   R(0, 0))->redirect = 0;
	op(0, PRISM_OP_READ, PRISM_F_INDIRECT | PRISM_F_ADDR_SCRATCH, 32, 0);
	end();

	/* redirect into a region; WRITE from scratch and from a region */
	begin();
	op(1, PRISM_OP_READ, PRISM_F_REDIRECT, 100, R(1, 0))->redirect =
		R(1, 0x1000);
	op(1, PRISM_OP_WRITE, PRISM_F_ADDR_SCRATCH, 16, 200);
	o = op(1, PRISM_OP_WRITE, PRISM_F_DATA_INDIRECT | PRISM_F_ARG_SCRATCH,
	       16, R(1, 8));
	o->arg_addr = 200;
	o = op(1, PRISM_OP_WRITE, PRISM_F_DATA_INDIRECT, 96, R(1, 0x400));
	o->arg_addr = R(1, 0x10);
	end();

	/* failures: unknown rkey, no right, outside the region */
	begin();
	op(0, PRISM_OP_READ, 0, 8, R(0, 0));
	cur.hdr.slot[0] = 0xff;
	cur.ops[0].op.rkey = 0x1234;
	op(2, PRISM_OP_WRITE, 0, 8, R(2, 0));
	op(3, PRISM_OP_READ, 0, 8, R(3, 0));
	op(0, PRISM_OP_READ, 0, 16, r0end - 8);
	op(3, PRISM_OP_CAS, 0, 8, R(3, 8));
	end();

	/* a full chain of 16 ops */
	begin();
	for (i = 0; i < 16; i++)
		op(i % 2, PRISM_OP_READ, i ? PRISM_F_CONDITIONAL : 0, 8 + i,
		   R(i % 2, 64 * i));
	end();

	/* the most output a chain can ask for */
	begin();
	op(0, PRISM_OP_READ, 0, 2 * FZ_PAGE, R(0, 0));
	end();

	printf("seeds: %u files in %s\n", seed_count, seed_dir);
	return 0;
}
