// SPDX-License-Identifier: MIT
/*
 * Host-only unit test of the key server of pu_keys.c (TAP): the exchange
 * on its Unix socket, driven by hand.  Deriving a key needs the module, so
 * here the server's PRISM socket is -1 and a request for a region it
 * serves ends in deriving's EBADF; everything before that is checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "pu_keys.h"
#include "pu_tap.h"

/* The request and answer of pu_keys.c, byte for byte. */
struct req {
	char		magic[4];
	uint32_t	addr_len;
	uint64_t	rkey;
	uint8_t		addr[32];
};

struct ans {
	char		magic[4];
	int32_t		err;
	uint32_t	rights;
	uint32_t	gen;
	uint8_t		kd[16];
};

static int dial(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	strcpy(sun.sun_path, path);
	if (s >= 0 && connect(s, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(s);
		return -1;
	}
	return s;
}

/* Send len bytes of q, let the server serve, return its answer's err. */
static int ask(struct pu_keysrv *ks, const void *q, size_t len, int *served)
{
	struct ans a;
	int s = dial(ks->path), n;

	if (s < 0)
		return 1000;
	if (send(s, q, len, 0) != (ssize_t)len) {
		close(s);
		return 1001;
	}
	shutdown(s, SHUT_WR);	/* a short request ends here */
	*served = pu_keysrv_serve(ks);
	n = (int)recv(s, &a, sizeof(a), MSG_WAITALL);
	close(s);
	if (n != (int)sizeof(a) || memcmp(a.magic, "PKA1", 4))
		return 1002;
	return a.err;
}

static struct req good(uint64_t rkey)
{
	struct req q = { .magic = "PKQ1", .rkey = rkey };
	struct sockaddr_prism *sa = (struct sockaddr_prism *)q.addr;

	prism_addr_init(sa, (const uint8_t *)"\x02\x00\x00\x00\x00\x07", 7);
	q.addr_len = prism_addr_len(sa);
	return q;
}

int main(void)
{
	char dir[] = "/tmp/pu-keys-test.XXXXXX", path[200], longp[200];
	struct pu_keysrv ks;
	struct stat st;
	struct req q;
	int served = -1, err, i;

	printf("TAP version 13\n");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/x.info.keys", dir);
	memset(longp, 'k', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	ok(pu_keysrv_open(&ks, longp, -1) == -ENAMETOOLONG && ks.fd == -1,
	   "a path too long for a Unix socket: ENAMETOOLONG");
	ok(pu_keysrv_open(&ks, path, -1) == 0, "the key server listens");
	ok(!stat(path, &st) && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600,
	   "its socket file is mode 0600 (%o)", st.st_mode & 0777);
	ok(pu_keysrv_add(&ks, 0x1234, 3) == 0 && pu_keysrv_add(&ks, 0x1234, 3) == -EEXIST,
	   "a region is served once: EEXIST");
	for (i = 1, err = 0; i < PU_KEYSRV_REGIONS && !err; i++)
		err = pu_keysrv_add(&ks, 0x1234 + (uint64_t)i, 1);
	ok(!err && pu_keysrv_add(&ks, 0x9999, 1) == -ENOSPC,
	   "at most %d regions: ENOSPC", PU_KEYSRV_REGIONS);
	ok(pu_keysrv_serve(&ks) == 0, "nothing pending: nothing served");

	q = good(0x1234);
	err = ask(&ks, &q, sizeof(q), &served);
	ok(err == -EBADF && served == 0 && ks.refused == 1,
	   "a good request for a served region reaches deriving (here EBADF: %d)", err);
	q = good(0x4321);
	ok(ask(&ks, &q, sizeof(q), &served) == -ENOENT,
	   "a region the server does not serve: ENOENT");
	q = good(0x1234);
	memcpy(q.magic, "XXXX", 4);
	ok(ask(&ks, &q, sizeof(q), &served) == -EINVAL, "a wrong magic: EINVAL");
	q = good(0x1234);
	q.addr_len = 33;
	ok(ask(&ks, &q, sizeof(q), &served) == -EINVAL, "an address longer than its field: EINVAL");
	q = good(0x1234);
	q.addr_len -= 1;
	ok(ask(&ks, &q, sizeof(q), &served) == -EINVAL,
	   "an address length that is not its kind's: EINVAL");
	q = good(0x1234);
	ok(ask(&ks, &q, sizeof(q) - 1, &served) == -EPROTO, "a short request: EPROTO");
	ok(ks.served == 0 && ks.refused == 6, "every refusal counted (%llu)",
	   (unsigned long long)ks.refused);

	pu_keysrv_close(&ks);
	ok(stat(path, &st) < 0 && errno == ENOENT && ks.fd == -1,
	   "closing removes the socket file");
	q = good(0x1234);
	ok(dial(path) < 0, "nobody listens any more");
	rmdir(dir);
	printf("1..%d\n", tap_run);
	return tap_failed != 0;
}
