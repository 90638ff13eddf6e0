// SPDX-License-Identifier: MIT
/* Minimal memcached text-protocol client: "get" and "set" only. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kv_memcached.h"

int mc_connect(struct mc_conn *c, const char *hostport)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char host[64];
	const char *colon = strrchr(hostport, ':');
	int one = 1;

	memset(c, 0, sizeof(*c));
	if (!colon || (size_t)(colon - hostport) >= sizeof(host))
		return -EINVAL;
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = 0;
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		return -EINVAL;
	sin.sin_port = htons((uint16_t)atoi(colon + 1));
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (struct sockaddr *)&sin, sizeof(sin))) {
		int err = -errno;

		close(c->fd);
		return err;
	}
	return 0;
}

void mc_close(struct mc_conn *c)
{
	close(c->fd);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fill(struct mc_conn *c)
{
	ssize_t n;

	if (c->rpos == c->rlen)
		c->rpos = c->rlen = 0;
	if (c->rpos && c->rlen == sizeof(c->rbuf)) {
		memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
		c->rlen -= c->rpos;
		c->rpos = 0;
	}
	if (c->rlen == sizeof(c->rbuf))
		return -EPROTO;
	do
		n = read(c->fd, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	c->rlen += (size_t)n;
	return 0;
}

/* Next "\r\n"-terminated line into line (terminator stripped). */
static int read_line(struct mc_conn *c, char *line, size_t cap)
{
	for (;;) {
		char *start = c->rbuf + c->rpos;
		char *nl = memchr(start, '\n', c->rlen - c->rpos);
		int err;

		if (nl) {
			size_t n = (size_t)(nl - start);

			if (n && start[n - 1] == '\r')
				n--;
			if (n >= cap)
				return -EPROTO;
			memcpy(line, start, n);
			line[n] = 0;
			c->rpos += (size_t)(nl - start) + 1;
			return 0;
		}
		err = fill(c);
		if (err)
			return err;
	}
}

static int read_exact(struct mc_conn *c, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		size_t avail = c->rlen - c->rpos, n;
		int err;

		if (!avail) {
			err = fill(c);
			if (err)
				return err;
			continue;
		}
		n = avail < len ? avail : len;
		if (p)
			memcpy(p, c->rbuf + c->rpos, n);
		if (p)
			p += n;
		c->rpos += n;
		len -= n;
	}
	return 0;
}

int mc_get(struct mc_conn *c, const char *key, void *val, size_t cap, size_t *vlen)
{
	char line[512], name[256], crlf[2];
	unsigned int flags;
	size_t len;
	int err, n;

	n = snprintf(line, sizeof(line), "get %s\r\n", key);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -EINVAL;
	err = write_all(c->fd, line, (size_t)n);
	if (!err)
		err = read_line(c, line, sizeof(line));
	if (err)
		return err;
	if (!strcmp(line, "END"))
		return -ENOENT;
	if (sscanf(line, "VALUE %255s %u %zu", name, &flags, &len) != 3)
		return -EPROTO;
	*vlen = len;
	err = read_exact(c, len <= cap ? val : NULL, len);
	if (!err)
		err = read_exact(c, crlf, 2);
	if (!err)
		err = read_line(c, line, sizeof(line));
	if (err)
		return err;
	if (strcmp(line, "END"))
		return -EPROTO;
	return len <= cap ? 0 : -EMSGSIZE;
}

int mc_set_send(struct mc_conn *c, const char *key, const void *val, size_t vlen)
{
	char hdr[512], *req;
	int err, n;

	n = snprintf(hdr, sizeof(hdr), "set %s 0 0 %zu\r\n", key, vlen);
	if (n < 0 || (size_t)n >= sizeof(hdr))
		return -EINVAL;
	/* one write, so a small request leaves in one segment (TCP_NODELAY) */
	req = malloc((size_t)n + vlen + 2);
	if (!req)
		return -ENOMEM;
	memcpy(req, hdr, (size_t)n);
	memcpy(req + n, val, vlen);
	memcpy(req + n + vlen, "\r\n", 2);
	err = write_all(c->fd, req, (size_t)n + vlen + 2);
	free(req);
	return err;
}

int mc_set_reply(struct mc_conn *c)
{
	char line[512];
	int err = read_line(c, line, sizeof(line));

	if (err)
		return err;
	return strcmp(line, "STORED") ? -EPROTO : 0;
}

int mc_set(struct mc_conn *c, const char *key, const void *val, size_t vlen)
{
	int err = mc_set_send(c, key, val, vlen);

	return err ? err : mc_set_reply(c);
}
