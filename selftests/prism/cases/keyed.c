// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: keyed regions.  Each case opens the server of its
 * regions in the peer's namespace, so one process holds both ends: it
 * installs the region key, derives the client's key and hands it over
 * in memory (the out-of-band channel of a real deployment), and checks the
 * region's memory directly.
 *
 *   keyed_errno   ioctl and PRISM_KEY errors, the 256-key limit
 *   keyed         sealed chains: data, plain regions beside, rights,
 *                 chains without a key, EMSGSIZE, two keyed regions
 *   keyed_wire    what a capture at the target sees: no plaintext of
 *                 sealed data (plain data as a control); a captured AREQ
 *                 replayed is answered from the reply cache, not run; a
 *                 tampered one is refused (auth_failed)
 *
 * The rotations (keyed_rekey, keyed_rekey_op, keyed_rotation) are in
 * keyed_rotate.c; the server of a case is shared through keyed.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
#include "keyed.h"
#include "prism_util.h"

void fill_key(__u8 *k, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < PRISM_KEY_SIZE; i++)
		k[i] = (__u8)(seed * 31 + i * 7 + 1);
}

static void *kmap(void)
{
	void *p = mmap(NULL, K_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Open the server in the peer's namespace; keyed regions keyed unless
 * !with_key. */
int kserver_open(struct client *c, struct kserver *k, bool with_key)
{
	__u32 gen = 0;
	int err;

	memset(k, 0, sizeof(*k));
	if (!c->peer_ns || !c->peer_if) {
		FAIL("needs --peer-ns and --peer-if");
		return -1;
	}
	k->s = open_in_netns(c->peer_ns, c->peer_if, 0);
	if (k->s < 0) {
		FAIL("server socket in %s: %s", c->peer_ns, errno_name(-k->s));
		return -1;
	}
	prism_local_addr(k->s, &k->sa.eth);
	if (k->sa.eth.sprism_kind == PRISM_ADDR_ETH)
		prism_addr_init(&k->sa.eth, k->sa.eth.sprism_mac,
				k->sa.eth.sprism_ep);
	k->kmem = kmap();
	k->romem = kmap();
	k->pmem = kmap();
	if (!k->kmem || !k->romem || !k->pmem) {
		FAIL("mmap");
		return -1;
	}
	memset(k->romem, 0x52, K_LEN);
	err = prism_reg_mr_flags(k->s, k->kmem, K_LEN, PRISM_ACCESS_ALL,
				 PRISM_MR_KEYED, &k->kr);
	if (!err)
		err = prism_reg_mr_flags(k->s, k->romem, K_LEN,
					 PRISM_ACCESS_REMOTE_READ,
					 PRISM_MR_KEYED, &k->ro);
	if (!err)
		err = prism_reg_mr(k->s, k->pmem, K_LEN, PRISM_ACCESS_ALL, &k->pr);
	if (err) {
		FAIL("REG_MR: %s", errno_name(-err));
		return -1;
	}
	if (!with_key)
		return 0;
	fill_key(k->key, 1);
	EXPECT_ERR(prism_rekey(k->s, k->kr, k->key, 0, &gen), 0, "REKEY");
	EXPECT_EQ(gen, 1, "generation of the first region key");
	EXPECT_ERR(prism_rekey(k->s, k->ro, k->key, 0, NULL), 0, "REKEY ro");
	return st_failed ? -1 : 0;
}

void kserver_close(struct kserver *k)
{
	if (k->s > 0)
		close(k->s);
	if (k->kmem)
		munmap(k->kmem, K_LEN);
	if (k->romem)
		munmap(k->romem, K_LEN);
	if (k->pmem)
		munmap(k->pmem, K_LEN);
}

/* Derive the client's key for region rkey with rights, and attach it. */
int give_key(struct client *c, struct kserver *k, __u64 rkey,
		    __u32 rights)
{
	__u8 kd[PRISM_KEY_SIZE];
	int err;

	err = prism_derive_key(k->s, rkey, &c->me.eth, rights, kd, NULL);
	if (!err)
		err = prism_attach_key(c->fd, &k->sa.eth, rkey, rights, kd);
	memset(kd, 0, sizeof(kd));
	if (err)
		FAIL("derive and attach a key: %s", errno_name(-err));
	return err;
}

/* Execute ch at the case's server; NULL (with a failure) if it could not
 * complete. */
const struct prism_msg *kexec(struct client *c, struct kserver *k,
				     struct prism_chain_buf *ch)
{
	return cl_exec_at(c, &k->sa.eth, ch, false);
}

void expect_status(const struct prism_msg *m, int status,
			  const char *what)
{
	if (m && m->status != status)
		FAIL("%s: chain status %s, expected %s", what,
		     prism_status_str(m->status), prism_status_str(status));
}

struct prism_stats kstats(int fd)
{
	struct prism_stats st;

	memset(&st, 0, sizeof(st));
	prism_get_stats(fd, &st);
	return st;
}

int case_keyed_errno(struct client *c)
{
	static const __u8 zero[PRISM_KEY_SIZE];
	struct prism_derive_key dk;
	struct kserver k;
	__u8 kd[PRISM_KEY_SIZE];
	unsigned int i;
	int fd, err;

	if (kserver_open(c, &k, false))
		goto out;
	fill_key(k.key, 2);
	EXPECT_ERR(prism_derive_key(k.s, k.kr, &c->me.eth, PRISM_ACCESS_ALL, kd, NULL),
		   ENOKEY, "DERIVE_KEY before the first REKEY");
	EXPECT_ERR(prism_rekey(k.s, k.pr, k.key, 0, NULL), EINVAL, "REKEY of a plain region");
	EXPECT_ERR(prism_rekey(k.s, k.kr ^ 0x5a5a, k.key, 0, NULL), ENOENT,
		   "REKEY of an unknown region");
	EXPECT_ERR(prism_rekey(k.s, k.kr, k.key, 60001, NULL), EINVAL,
		   "REKEY with an overlap above 60 s");
	EXPECT_ERR(prism_rekey(k.s, k.kr, k.key, 60000, NULL), 0, "REKEY");
	EXPECT_ERR(prism_rekey(k.s, k.ro, k.key, 0, NULL), 0, "REKEY ro");
	EXPECT_ERR(prism_derive_key(k.s, k.kr, &c->me.eth, 0, kd, NULL), EINVAL,
		   "DERIVE_KEY with no rights");
	EXPECT_ERR(prism_derive_key(k.s, k.ro, &c->me.eth, PRISM_ACCESS_REMOTE_WRITE, kd,
				    NULL), EINVAL, "DERIVE_KEY of rights the region lacks");
	EXPECT_ERR(prism_derive_key(k.s, k.kr, &c->me.eth, PRISM_ACCESS_ALL + 1, kd, NULL),
		   EINVAL, "DERIVE_KEY of an unknown right");
	EXPECT_ERR(prism_derive_key(k.s, k.pr, &c->me.eth, PRISM_ACCESS_ALL, kd, NULL),
		   EINVAL, "DERIVE_KEY of a plain region");
	EXPECT_ERR(prism_derive_key(k.s, k.kr ^ 0x5a5a, &c->me.eth, PRISM_ACCESS_ALL, kd,
				    NULL), ENOENT, "DERIVE_KEY of an unknown region");
	memset(&dk, 0, sizeof(dk));
	dk.rkey = k.kr;
	dk.rights = PRISM_ACCESS_REMOTE_READ;
	dk.addr_len = prism_addr_len(&c->me.eth);
	memcpy(dk.addr, &c->me, dk.addr_len);
	dk.reserved = 1;
	EXPECT_ERR(ioctl(k.s, PRISM_IOC_DERIVE_KEY, &dk) ? -errno : 0, EINVAL,
		   "DERIVE_KEY with reserved != 0");
	dk.reserved = 0;
	dk.addr_len = 33;
	EXPECT_ERR(ioctl(k.s, PRISM_IOC_DERIVE_KEY, &dk) ? -errno : 0, EINVAL,
		   "DERIVE_KEY with an address longer than its field");
	dk.addr_len = 4;
	EXPECT_ERR(ioctl(k.s, PRISM_IOC_DERIVE_KEY, &dk) ? -errno : 0, EINVAL,
		   "DERIVE_KEY with a short address");
	dk.addr_len = prism_addr_len(&c->me.eth);
	EXPECT_ERR(ioctl(k.s, PRISM_IOC_DERIVE_KEY, &dk) ? -errno : 0, 0, "DERIVE_KEY");
	EXPECT(memcmp(dk.kd, zero, sizeof(zero)), "a derived key is not all zero");
	EXPECT_EQ(dk.gen, 1, "DERIVE_KEY: generation");

	/* The client side. */
	EXPECT_ERR(prism_attach_key(c->fd, &k.sa.eth, 0, PRISM_ACCESS_ALL, kd), EINVAL,
		   "PRISM_KEY for rkey 0");
	EXPECT_ERR(prism_attach_key(c->fd, &k.sa.eth, k.kr, 0, kd), EINVAL,
		   "PRISM_KEY without rights");
	EXPECT_ERR(prism_detach_key(c->fd, &k.sa.eth, k.kr), ENOENT,
		   "detach of a key never attached");
	{
		struct prism_key pk;

		memset(&pk, 0, sizeof(pk));
		EXPECT_ERR(setsockopt(c->fd, SOL_PRISM, PRISM_KEY, &pk, sizeof(pk) - 1) ?
			   -errno : 0, EINVAL, "PRISM_KEY of the wrong size");
		pk.addr_len = prism_addr_len(&k.sa.eth);
		memcpy(pk.addr, &k.sa, pk.addr_len);
		pk.rkey = k.kr;
		pk.rights = PRISM_ACCESS_REMOTE_READ;
		pk.flags = 2;
		EXPECT_ERR(setsockopt(c->fd, SOL_PRISM, PRISM_KEY, &pk, sizeof(pk)) ?
			   -errno : 0, EINVAL, "PRISM_KEY with an unknown flag");
	}
	fd = prism_open_spec(c->ifname, 0);
	if (fd < 0) {
		FAIL("second client socket: %s", errno_name(-fd));
		goto out;
	}
	for (i = 0, err = 0; i < 256 && !err; i++)
		err = prism_attach_key(fd, &k.sa.eth, k.kr + 1 + i, PRISM_ACCESS_ALL, kd);
	EXPECT_ERR(err, 0, "256 keys on one socket");
	EXPECT_ERR(prism_attach_key(fd, &k.sa.eth, k.kr + 1000, PRISM_ACCESS_ALL, kd),
		   ENOBUFS, "a 257th key");
	EXPECT_ERR(prism_attach_key(fd, &k.sa.eth, k.kr + 1, PRISM_ACCESS_ALL, kd), 0,
		   "replacing one of 256 keys");
	EXPECT_ERR(prism_detach_key(fd, &k.sa.eth, k.kr + 1), 0, "detach");
	EXPECT_ERR(prism_attach_key(fd, &k.sa.eth, k.kr + 1000, PRISM_ACCESS_ALL, kd), 0,
		   "attach after a detach");
	close(fd);
	fd = socket(prism_family(), SOCK_DGRAM, 0);
	EXPECT_ERR(prism_attach_key(fd, &k.sa.eth, k.kr, PRISM_ACCESS_ALL, kd), ENOTCONN,
		   "PRISM_KEY on an unbound socket");
	close(fd);
out:
	kserver_close(&k);
	return st_failed;
}

int case_keyed(struct client *c)
{
	static const char secret[] = "sealed 32 bytes of a keyed WRITE";
	_Alignas(8) unsigned char ob[64];
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_stats s0, s1;
	struct kserver k;
	const void *p;
	__u32 len;
	ssize_t n;

	if (kserver_open(c, &k, true))
		goto out;
	memset(k.kmem, 0x11, K_LEN);
	memcpy(k.pmem, "plain bytes", 11);

	/* No key attached: a plain chain does not reach a keyed region. */
	s0 = kstats(k.s);
	cl_chain(c, &ch);
	prism_prep_read(&ch, k.kr, (__u64)(uintptr_t)k.kmem, 8);
	m = kexec(c, &k, &ch);
	expect_status(m, PRISM_S_NO_ENDPOINT, "unsealed READ of a keyed region");
	cl_chain(c, &ch);
	prism_prep_read(&ch, k.pr, (__u64)(uintptr_t)k.pmem, 11);
	prism_prep_write(&ch, k.kr, (__u64)(uintptr_t)k.kmem, "XXXX", 4);
	m = kexec(c, &k, &ch);
	expect_status(m, PRISM_S_OK, "unsealed chain on a plain and a keyed region");
	cl_expect_op(m, 0, PRISM_S_OK, "plain bytes", 11, "READ of the plain region");
	cl_expect_op(m, 1, PRISM_S_AUTH, NULL, 0, "unsealed WRITE to the keyed region");
	EXPECT_EQ(k.kmem[0], 0x11, "keyed region untouched");
	s1 = kstats(k.s);
	EXPECT_EQ(s1.unauth_refused - s0.unauth_refused, 1, "unauth_refused at the target");

	/* Sealed: WRITE, READ back, CAS, and a plain region in the same chain. */
	if (give_key(c, &k, k.kr, PRISM_ACCESS_ALL))
		goto out;
	cl_chain(c, &ch);
	prism_prep_write(&ch, k.kr, (__u64)(uintptr_t)k.kmem + 100, secret, 32);
	prism_prep_read(&ch, k.kr, (__u64)(uintptr_t)k.kmem + 100, 32);
	prism_prep_cas_u64(&ch, k.kr, (__u64)(uintptr_t)k.kmem + 8, PRISM_CAS_EQ,
			   0x1111111111111111ULL, 42);
	prism_prep_read(&ch, k.pr, (__u64)(uintptr_t)k.pmem, 11);
	m = kexec(c, &k, &ch);
	expect_status(m, PRISM_S_OK, "sealed chain");
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "sealed WRITE");
	cl_expect_op(m, 1, PRISM_S_OK, secret, 32, "sealed READ");
	cl_expect_op(m, 3, PRISM_S_OK, "plain bytes", 11, "plain READ in a sealed chain");
	EXPECT_MEM(k.kmem + 100, secret, 32, "keyed region after the sealed WRITE");
	EXPECT_EQ(k.kmem[8], 42, "keyed region after the sealed CAS");
	/* The same READs with an output buffer: opened, then copied there. */
	memset(ob, 0, sizeof(ob));
	cl_chain(c, &ch);
	prism_prep_read(&ch, k.kr, (__u64)(uintptr_t)k.kmem + 100, 32);
	prism_prep_read(&ch, k.pr, (__u64)(uintptr_t)k.pmem, 11);
	prism_chain_set_outbuf(&ch, ob, sizeof(ob));
	m = kexec(c, &k, &ch);
	expect_status(m, PRISM_S_OK, "sealed chain with an output buffer");
	if (m) {
		EXPECT_EQ(m->len, sizeof(*m) + 2 * sizeof(m->res[0]),
			  "its completion's length (the results alone)");
		p = prism_msg_outbuf_data(m, 0, ob, sizeof(ob), &len);
		EXPECT(p == ob && len == 32 && !memcmp(p, secret, 32),
		       "sealed READ into the output buffer");
		p = prism_msg_outbuf_data(m, 1, ob, sizeof(ob), &len);
		EXPECT(p == ob + 32 && len == 11 && !memcmp(p, "plain bytes", 11),
		       "plain READ of a sealed chain into the output buffer");
	}
	s0 = kstats(k.s);
	EXPECT_EQ(s0.auth_failed, 0, "auth_failed at the target");
	EXPECT_EQ(kstats(c->fd).resp_auth_failed, 0, "resp_auth_failed at the client");

	/* A chain and its answer must each fit one frame. */
	cl_chain(c, &ch);
	prism_prep_read(&ch, k.kr, (__u64)(uintptr_t)k.kmem, 7000);
	n = prism_execute(c->fd, &k.sa.eth, &ch, c->out, sizeof(c->out));
	EXPECT_ERR((int)n, EMSGSIZE, "sealed READ of 7000 bytes");
	cl_chain(c, &ch);
	prism_prep_read(&ch, k.kr, (__u64)(uintptr_t)k.kmem, 8);
	if (!give_key(c, &k, k.ro, PRISM_ACCESS_REMOTE_READ)) {
		prism_prep_read(&ch, k.ro, (__u64)(uintptr_t)k.romem, 8);
		n = prism_execute(c->fd, &k.sa.eth, &ch, c->out, sizeof(c->out));
		EXPECT_ERR((int)n, EINVAL, "a chain on two keyed regions");
	}

	/* A read-only key: its WRITEs fail with ACCESS, its READs work. */
	if (give_key(c, &k, k.kr, PRISM_ACCESS_REMOTE_READ))
		goto out;
	cl_chain(c, &ch);
	prism_prep_write(&ch, k.kr, (__u64)(uintptr_t)k.kmem + 100, "YYYY", 4);
	prism_prep_read(&ch, k.kr, (__u64)(uintptr_t)k.kmem + 100, 32);
	m = kexec(c, &k, &ch);
	expect_status(m, PRISM_S_OK, "chain with a read-only key");
	cl_expect_op(m, 0, PRISM_S_ACCESS, NULL, 0, "WRITE with a read-only key");
	cl_expect_op(m, 1, PRISM_S_OK, secret, 32, "READ with a read-only key");
	EXPECT_MEM(k.kmem + 100, secret, 32, "keyed region after the refused WRITE");
out:
	prism_detach_key(c->fd, &k.sa.eth, k.kr);
	prism_detach_key(c->fd, &k.sa.eth, k.ro);
	kserver_close(&k);
	return st_failed;
}

/* Offset of the PRISM header in a captured frame, or -1. */
static int prism_off(const unsigned char *f, ssize_t n)
{
	unsigned int et, off;

	if (n < 14)
		return -1;
	et = (unsigned int)f[12] << 8 | f[13];
	if (et == PRISM_DEFAULT_ETHERTYPE)
		return 14;
	if (et == ETH_P_IP && n >= 34 && f[23] == IPPROTO_UDP)
		off = 14 + (f[14] & 0xf) * 4u;
	else if (et == ETH_P_IPV6 && n >= 62 && f[20] == IPPROTO_UDP)
		off = 14 + 40;
	else
		return -1;
	if (off + 8 > (unsigned int)n ||
	    ((unsigned int)f[off + 2] << 8 | f[off + 3]) != PRISM_DEFAULT_UDP_PORT)
		return -1;
	return (int)off + 8;
}

/* Read what the capture holds; count frames containing pat. */
void capture_drain(int cap, const void *pat, size_t plen,
			  struct capture *r)
{
	unsigned char f[2048];
	struct sockaddr_ll ll;
	socklen_t ll_len;
	ssize_t n;
	int off;

	memset(r, 0, sizeof(*r));
	for (;;) {
		ll_len = sizeof(ll);
		n = recvfrom(cap, f, sizeof(f), 0, (struct sockaddr *)&ll, &ll_len);
		if (n < 0)
			break;
		r->frames++;
		if (memmem(f, (size_t)n, pat, plen))
			r->hits++;
		off = prism_off(f, n);
		if (off < 0)
			continue;
		r->prism++;
		/* Received by the target: type AREQ (second header byte). */
		if (off + 1 < n && f[off + 1] == 6 && ll.sll_pkttype == PACKET_HOST) {
			memcpy(r->areq, f, (size_t)n);
			r->areq_len = n;
		}
	}
}

/* Wait (at most 10 s) until counter field of fd's stats moved by want. */
static long long wait_stat(int fd, size_t field, __u64 base, __u64 want)
{
	long long end = now_ms() + 10000;
	struct prism_stats st;
	__u64 v;

	for (;;) {
		st = kstats(fd);
		memcpy(&v, (const char *)&st + field, sizeof(v));
		if (v - base >= want || now_ms() > end)
			return (long long)(v - base);
		usleep(2000);
	}
}

static __u32 csum_add(__u32 sum, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (__u32)p[n - 1] << 8;
	return sum;
}

/*
 * A captured UDP frame may carry a checksum the sender's device was to
 * finish (veth offloads it): compute it again before sending it ourselves.
 */
static void udp_csum_fix(unsigned char *f, ssize_t n)
{
	unsigned int et = (unsigned int)f[12] << 8 | f[13], l3 = 14, l4, len;
	unsigned char pseudo[4];
	__u32 sum = 0;

	if (et == ETH_P_IP) {
		l4 = l3 + (f[l3] & 0xf) * 4u;
		sum = csum_add(sum, f + l3 + 12, 8);	/* addresses */
	} else if (et == ETH_P_IPV6) {
		l4 = l3 + 40;
		sum = csum_add(sum, f + l3 + 8, 32);
	} else {
		return;
	}
	len = (unsigned int)f[l4 + 4] << 8 | f[l4 + 5];
	if (l4 + len > (unsigned int)n)
		return;
	pseudo[0] = 0;
	pseudo[1] = IPPROTO_UDP;
	pseudo[2] = (unsigned char)(len >> 8);
	pseudo[3] = (unsigned char)len;
	sum = csum_add(sum, pseudo, 4);
	f[l4 + 6] = f[l4 + 7] = 0;
	sum = csum_add(sum, f + l4, len);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	if (!sum)
		sum = 0xffff;
	f[l4 + 6] = (unsigned char)(sum >> 8);
	f[l4 + 7] = (unsigned char)sum;
}

/* Send frame f out of the interface of this namespace with its source MAC. */
static int inject(int fd, unsigned char *f, ssize_t n)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = ETH_ALEN };
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa)) {
		FAIL("getifaddrs: %s", errno_name(errno));
		return -1;
	}
	for (i = ifa; i; i = i->ifa_next) {
		const struct sockaddr_ll *ll = (const void *)i->ifa_addr;

		if (ll && ll->sll_family == AF_PACKET && ll->sll_halen == ETH_ALEN &&
		    !memcmp(ll->sll_addr, f + ETH_ALEN, ETH_ALEN)) {
			to.sll_ifindex = ll->sll_ifindex;
			break;
		}
	}
	freeifaddrs(ifa);
	if (!to.sll_ifindex) {
		FAIL("no interface here has the captured frame's source MAC");
		return -1;
	}
	udp_csum_fix(f, n);
	memcpy(to.sll_addr, f, ETH_ALEN);
	if (sendto(fd, f, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to)) != n) {
		FAIL("sendto: %s", errno_name(errno));
		return -1;
	}
	return 0;
}

static void check_zero(const unsigned char *p, size_t n, const char *what)
{
	static const unsigned char zero[64];

	EXPECT_MEM(p, zero, n, what);
}

int case_keyed_wire(struct client *c)
{
	static const char secret[] = "SECRET-payload-never-on-the-wire";
	static const char visible[] = "VISIBLE-payload-of-a-plain-WRITE";
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_stats s0;
	struct capture cp;
	struct kserver k;
	int cap, inj = -1;

	cap = capture_in_netns(c->peer_ns);
	if (cap < 0) {
		FAIL("packet socket in %s: %s", c->peer_ns, errno_name(-cap));
		return 1;
	}
	if (kserver_open(c, &k, true) || give_key(c, &k, k.kr, PRISM_ACCESS_ALL))
		goto out;
	capture_drain(cap, "", 0, &cp);

	/* The control: a plain WRITE's data is seen on the wire. */
	cl_chain(c, &ch);
	prism_prep_write(&ch, k.pr, (__u64)(uintptr_t)k.pmem, visible, 32);
	m = kexec(c, &k, &ch);
	expect_status(m, PRISM_S_OK, "plain WRITE");
	capture_drain(cap, visible, 32, &cp);
	st_diag("plain WRITE: %u frames captured, %u of PRISM, %u with the data",
		cp.frames, cp.prism, cp.hits);
	EXPECT(cp.hits >= 1, "the capture sees a plain WRITE's data (%u frames)", cp.frames);

	/* A sealed WRITE and READ of the same bytes: neither shows them. */
	cl_chain(c, &ch);
	prism_prep_write(&ch, k.kr, (__u64)(uintptr_t)k.kmem + 256, secret, 32);
	prism_prep_read(&ch, k.kr, (__u64)(uintptr_t)k.kmem + 256, 32);
	m = kexec(c, &k, &ch);
	expect_status(m, PRISM_S_OK, "sealed WRITE + READ");
	cl_expect_op(m, 1, PRISM_S_OK, secret, 32, "sealed READ");
	capture_drain(cap, secret, 32, &cp);
	st_diag("sealed chain: %u frames captured, %u of PRISM, %u with the data",
		cp.frames, cp.prism, cp.hits);
	EXPECT(cp.prism >= 2, "the capture saw the sealed request and its answer (%u)",
	       cp.prism);
	EXPECT_EQ(cp.hits, 0, "captured frames holding the sealed data");
	if (!cp.areq_len) {
		FAIL("no AREQ captured at the target");
		goto out;
	}

	/*
	 * Replayed as captured (sent again from the client's interface): a
	 * repeat, answered from the reply cache, not run again.
	 */
	memset(k.kmem + 256, 0, 32);
	inj = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (inj < 0) {
		FAIL("packet socket: %s", errno_name(errno));
		goto out;
	}
	s0 = kstats(k.s);
	if (inject(inj, cp.areq, cp.areq_len))
		goto out;
	EXPECT_EQ(wait_stat(k.s, offsetof(struct prism_stats, duplicates),
			    s0.duplicates, 1), 1, "duplicates at the target after the replay");
	EXPECT_EQ(kstats(k.s).chains_served - s0.chains_served, 0,
		  "chains served for the replay");
	check_zero(k.kmem + 256, 32, "keyed bytes after the replay (not written again)");

	/* One bit of ciphertext changed: refused, counted, not run. */
	s0 = kstats(k.s);
	cp.areq[cp.areq_len - 16 - 3] ^= 0x20;	/* before the tag */
	if (inject(inj, cp.areq, cp.areq_len))
		goto out;
	EXPECT_EQ(wait_stat(k.s, offsetof(struct prism_stats, auth_failed),
			    s0.auth_failed, 1), 1, "auth_failed at the target after a tampered frame");
	EXPECT_EQ(kstats(k.s).duplicates - s0.duplicates, 0, "duplicates for the tampered frame");
	check_zero(k.kmem + 256, 32, "keyed bytes after the tampered frame");
out:
	if (inj >= 0)
		close(inj);
	close(cap);
	prism_detach_key(c->fd, &k.sa.eth, k.kr);
	kserver_close(&k);
	return st_failed;
}
