// SPDX-License-Identifier: GPL-2.0
/*
 * A client that never reads its completions (test C): submits 1 KiB READs
 * until the socket has refused every chain (ENOBUFS) for a whole second,
 * or for at most SECONDS.  Each ENOBUFS (chains in flight at the maximum,
 * or no room for the completion) is followed by a 1 ms wait and a retry;
 * in flight at the maximum lasts one round trip, a full receive buffer
 * lasts until the completions are read, which this client never does.
 * Then it keeps its socket, and everything queued on it, until RELEASEFILE
 * exists (at most 300 s).
 *
 * Usage: hz_hog IFNAME SECONDS RELEASEFILE ADDRLINE...
 * Prints "rcvbuf=.. accepted=.. enobufs=.. other=.. first_other=.. ms=..",
 * then "holding=1".
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include "hz.h"

int main(int argc, char **argv)
{
	static _Alignas(8) unsigned char cbuf[256];
	unsigned long accepted = 0, enobufs = 0, other = 0;
	int fd, err, first_other = 0, rcvbuf = 0;
	socklen_t sl = sizeof(rcvbuf);
	struct prism_chain_buf c;
	struct hz_target t;
	int64_t t0, end, last_ok;

	if (argc < 5) {
		fprintf(stderr, "usage: %s IFNAME SECONDS RELEASEFILE ADDRLINE...\n",
			argv[0]);
		return 2;
	}
	if (hz_parse_target(argc - 4, argv + 4, &t)) {
		fprintf(stderr, "no target address (mac=.. ep=..)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = prism_open(argv[1], 0, 0);
	if (fd < 0) {
		printf("open=%s\n", hz_err(fd));
		return 1;
	}
	prism_set_opt(fd, PRISM_MAX_OUTSTANDING, PRISM_WINDOW);
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &sl);
	t0 = now_ms();
	last_ok = t0;
	end = t0 + 1000 * strtoll(argv[2], NULL, 0);
	while (now_ms() < end && (!enobufs || now_ms() - last_ok < 1000)) {
		prism_chain_init(&c, cbuf, sizeof(cbuf), accepted);
		prism_prep_read(&c, t.rkey, t.addr + HZ_KNOWN_OFF, 1024);
		err = prism_submit(fd, &t.sa, &c);
		if (!err) {
			accepted++;
			last_ok = now_ms();
			continue;
		}
		if (err == -ENOBUFS) {
			enobufs++;
		} else {
			if (!other++)
				first_other = err;
		}
		poll(NULL, 0, 1);
	}
	printf("rcvbuf=%d accepted=%lu enobufs=%lu other=%lu first_other=%s ms=%lld\n",
	       rcvbuf, accepted, enobufs, other, hz_err(first_other),
	       (long long)(now_ms() - t0));
	printf("holding=1\n");
	hz_wait_file(argv[3], 300000);
	return 0;
}
