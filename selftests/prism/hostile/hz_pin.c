// SPDX-License-Identifier: GPL-2.0
/*
 * Pinning under RLIMIT_MEMLOCK (test D): registers KIB KiB of fresh
 * anonymous memory on a new socket; optionally then fork+execs itself to
 * register KIB2 KiB more in a child (which exits at once); then holds its
 * region until HOLDFILE exists (at most 300 s; "-": exit at once).
 *
 * Usage: hz_pin LABEL IFNAME KIB HOLDFILE|- [child KIB2]
 * Prints "LABEL reg=OK" (or the errno name), "LABEL holding=1".
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/wait.h>

#include "hz.h"

int main(int argc, char **argv)
{
	size_t len;
	void *mem;
	int fd, err, status;
	char label[64];
	pid_t pid;

	if (argc < 5) {
		fprintf(stderr, "usage: %s LABEL IFNAME KIB HOLDFILE|- [child KIB2]\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	len = (size_t)strtoul(argv[3], NULL, 0) << 10;
	fd = prism_open(argv[2], 0, 0);
	if (fd < 0) {
		printf("%s open=%s\n", argv[1], hz_err(fd));
		return 1;
	}
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		printf("%s mmap=%s\n", argv[1], hz_err(-errno));
		return 1;
	}
	memset(mem, 1, len);
	err = prism_reg_mr(fd, mem, len, PRISM_ACCESS_ALL, NULL);
	printf("%s reg=%s\n", argv[1], hz_err(err));
	if (argc > 6 && !strcmp(argv[5], "child")) {
		snprintf(label, sizeof(label), "%s-child", argv[1]);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], label, argv[2],
			      argv[6], "-", (char *)NULL);
			printf("%s exec=%s\n", label, hz_err(-errno));
			_exit(1);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			printf("%s fork=failed\n", label);
	}
	if (strcmp(argv[4], "-")) {
		printf("%s holding=1\n", argv[1]);
		hz_wait_file(argv[4], 300000);
	}
	return 0;
}
