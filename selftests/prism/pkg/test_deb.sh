#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the PRISM Debian packages in the guest and check them (TAP).
#
# Usage (as root; the packages built on the host first with `make deb`):
#   tools/vm/run.sh --timeout 1200 -- selftests/prism/pkg/test_deb.sh [DEBDIR]
# or in two parts, as tools/run-tests.sh's pkg stage runs it:
#   selftests/prism/pkg/test_deb.sh --install-only DEBDIR LAYER   # on the host
#   tools/vm/run.sh -- selftests/prism/pkg/test_deb.sh --installed DEBDIR LAYER
#
# DEBDIR (default build/deb) holds prism-dkms, prism-tools, liburing-prism
# and liburing-prism-dev .debs (one version).
#
# The guest's / is the host root, read-only, so the packages go into a
# writable copy: an overlayfs with / (9p) as its lower layer and a tmpfs
# as the upper one, mounted at /tmp/pkgroot, with /proc, /sys, /dev bound
# into it and fresh tmpfs on /tmp and /run; every step runs chrooted there.
#
# In two parts, the install (dpkg -i; DKMS builds the module for the stock
# guest's kernel, tools/kernel/kver.sh, at the host's speed rather than
# TCG's) runs on the host, in the same kind of overlay whose upper layer is
# the directory LAYER/upper; the guest then stacks a copy of that layer
# over its root and runs the other checks.  The host's
# root is not touched.
# Packages they depend on (dkms, liburing2, liburing-dev, libmnl0, gcc,
# pkg-config) must be installed on the host (tools/install-deps.sh).
#
# Checks: dpkg -i of the four packages; dkms status shows prism installed
# for the running kernel; the module lies under updates/dkms (or extra);
# modprobe loads it; an option in /etc/modprobe.d/prism.conf takes effect;
# prismctl stats; a client compiled with pkg-config links
# liburing-prism.so.1 and READs from a server (built the same way) across
# two network namespaces joined by a veth pair; dpkg -r (and -P) removes
# the module, the DKMS tree and the files.
set -u

mode=all layerdir=
case ${1:-} in
--install-only | --installed)
	mode=${1#--}
	[ $# = 3 ] || { echo "usage: test_deb.sh $1 DEBDIR LAYER" >&2; exit 2; }
	layerdir=$3
	set -- "$2"
	;;
esac
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# shellcheck source=../../../tools/lib/prism_lib.sh
. "$repo/tools/lib/prism_lib.sh"
debdir=${1:-$repo/build/deb}
case $debdir in /*) ;; *) debdir=$PWD/$debdir ;; esac

root=/tmp/pkgroot
layer=/tmp/pkglayer
if [ "$mode" = install-only ]; then
	# On the host: the layer (and the mount point) on disk, kept for the guest.
	case $layerdir in /*) ;; *) layerdir=$PWD/$layerdir ;; esac
	layer=$layerdir root=$layerdir/root
fi
NS_S=pkg-srv NS_C=pkg-cli
EP=9
PATH_IN=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# not_ok DESC: also the tail of $T/log.
not_ok() {
	tap_not_ok "$@"
	[ -s "$T/log" ] && tail -n 25 "$T/log" | sed 's/^/#   /'
}
# check DESC CMD...: passes iff CMD succeeds (its output in $T/log).
check() {
	local desc=$1
	shift
	if "$@" > "$T/log" 2>&1; then ok "$desc"; else not_ok "$desc"; fi
}
# bail MSG: also undoes the mounts (there is no EXIT trap).
bail() { echo "Bail out! $*"; cleanup; exit 1; }

# inroot CMD...: run CMD in the package root with a clean environment.
inroot() {
	chroot "$root" /usr/bin/env -i PATH=$PATH_IN HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
insh() { inroot /bin/sh -c "$1"; }

# umount_root: $root and every mount under it, innermost first.
umount_root() {
	awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts |
		sort -r | while read -r m; do umount -l "$m" 2> /dev/null; done
}

server_pid=
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null
	ip netns del "$NS_S" 2> /dev/null
	ip netns del "$NS_C" 2> /dev/null
	grep -qs '^prism ' /proc/modules && rmmod prism 2> /dev/null
	umount_root
	[ "$mode" = install-only ] || umount -l "$layer" 2> /dev/null
	rm -rf "$T"
}

T=$(mktemp -d /tmp/test_deb.XXXXXX)
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (run in the guest)"; exit 0; }
[ -n "${PRISM_IN_VM:-}" ] || [ "$mode" = install-only ] ||
	echo "# warning: not in the PRISM guest (PRISM_IN_VM unset)"

debs=()
for p in prism-dkms prism-tools liburing-prism liburing-prism-dev; do
	f=$(ls "$debdir/${p}_"*.deb 2> /dev/null | sort -V | tail -n 1)
	[ -n "$f" ] || { echo "1..0 # SKIP no ${p}_*.deb in $debdir (make deb)"; exit 0; }
	debs+=("$f")
done
kver=$(uname -r)
case $mode in
all) tap_plan 16 ;;
install-only) kver=$("$repo/tools/kernel/kver.sh") || bail "no stock kernel (tools/kernel/kver.sh)"
	tap_plan 2 ;;
installed) tap_plan 14 ;;
esac
echo "# packages: ${debs[*]##*/}"
echo "# kernel: $kver"

# ---------------------------------------------------------------------------
# The writable root.
# ---------------------------------------------------------------------------
lower=/
case $mode in
install-only)
	umount_root	# a run that died may have left its mounts
	rm -rf "$layer" && mkdir -p "$layer/upper" "$layer/work" "$root" ||
		bail "cannot make $layer"
	;;
*)
	mkdir -p "$layer" "$root"
	mount -t tmpfs -o mode=755 pkglayer "$layer" || bail "tmpfs for the overlay"
	mkdir -p "$layer/upper" "$layer/work"
	# --installed: the host's install is the layer under the tmpfs one,
	# copied into the tmpfs (a layer inside the 9p root would overlap it).
	if [ "$mode" = installed ]; then
		cp -a "$layerdir/upper" "$layer/installed" || bail "copy of $layerdir/upper"
		lower=$layer/installed:/
	fi
	;;
esac
modprobe overlay 2> /dev/null
if ! mount -t overlay overlay \
	-o "lowerdir=$lower,upperdir=$layer/upper,workdir=$layer/work" "$root" 2> "$T/log"; then
	cat "$T/log" | sed 's/^/# /'
	bail "overlayfs over $lower failed"
fi
for m in proc sys dev; do
	mount --rbind "/$m" "$root/$m" || bail "bind /$m"
done
mount -t tmpfs -o mode=1777 tmp "$root/tmp" || bail "tmpfs /tmp"
mount -t tmpfs -o mode=755 run "$root/run" || bail "tmpfs /run"
mkdir -p "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/" || bail "copy the packages"
insh 'touch /var/lib/dpkg/.pkgroot-write-test' || bail "the package root is not writable"
# Keep the install short under TCG (in the overlay only; the host is not
# touched): DKMS builds for the running kernel alone (other kernels' build
# links hidden), and man-db does not re-index every page.
if [ "$mode" != installed ]; then
	for b in "$root"/lib/modules/*/build; do
		[ "${b%/build}" = "$root/lib/modules/$kver" ] || rm -f "$b"
	done
	rm -f "$root/var/lib/man-db/auto-update"
fi
echo "# package root: overlayfs (lower $lower, upper $layer/upper) at $root"
[ "$mode" = install-only ] || ! grep -q '^prism ' /proc/modules ||
	bail "a prism module is already loaded"
for p in dkms gcc pkg-config liburing-dev libmnl0; do
	inroot dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2> /dev/null | grep -q '^ii' ||
		bail "$p is not installed on the host (tools/install-deps.sh)"
done

# ---------------------------------------------------------------------------
# Install.
# ---------------------------------------------------------------------------
if [ "$mode" != installed ]; then
start=$(date +%s)
# Its output streams as TAP comments: the DKMS builds take minutes in TCG.
insh 'dpkg -i /tmp/debs/*.deb' > "$T/dpkg" 2>&1 &
dpkg_pid=$!
# Each line with the seconds since the start, to see where the time goes.
tail -n +1 -f "$T/dpkg" --pid="$dpkg_pid" |
	while IFS= read -r line; do echo "# dpkg: [$(($(date +%s) - start)) s] $line"; done
if wait "$dpkg_pid"; then
	ok "dpkg -i of the four packages"
else
	cp "$T/dpkg" "$T/log"
	not_ok "dpkg -i of the four packages"
fi
echo "# dpkg -i took $(( $(date +%s) - start )) s (DKMS builds for $kver)"

check "dkms status: prism installed for $kver" \
	sh -c "chroot $root dkms status -m prism | tee /dev/stderr | grep -E '^prism/[^,]+, $kver, [^:]+: installed'"
fi
if [ "$mode" = install-only ]; then
	# The guest stacks $layer/upper; the mounts go, the layer stays.
	cleanup
	tap_finish
	exit
fi

modfile=
for d in updates/dkms extra updates; do
	f=$(ls "$root/lib/modules/$kver/$d"/prism.ko* 2> /dev/null | head -n 1)
	[ -n "$f" ] && { modfile=${f#"$root"}; break; }
done
if [ -n "$modfile" ]; then
	ok "module installed at $modfile"
else
	T_LOG=$(find "$root/lib/modules" -name 'prism.ko*' 2> /dev/null)
	echo "$T_LOG" > "$T/log"
	not_ok "module under /lib/modules/$kver/updates/dkms or extra"
fi

check "modprobe prism loads the DKMS module" \
	sh -c "chroot $root modprobe prism && grep -q '^prism ' /proc/modules &&
	       [ \"\$(chroot $root modinfo -n prism)\" = '$modfile' ] &&
	       [ \"\$(cat /sys/module/prism/parameters/ethertype)\" = $((0x88B5)) ]"

check "conffile /etc/modprobe.d/prism.conf has the commented example" \
	grep -qx '# options prism family=25 ethertype=0x88B5' "$root/etc/modprobe.d/prism.conf"

check "modprobe.d option ethertype=0x88B6 takes effect" \
	sh -c "rmmod prism && echo 'options prism ethertype=0x88B6' >> $root/etc/modprobe.d/prism.conf &&
	       chroot $root modprobe prism &&
	       [ \"\$(cat /sys/module/prism/parameters/ethertype)\" = $((0x88B6)) ]"

check "prismctl stats" insh 'prismctl stats && prismctl -j stats | grep -q "{"'
check "prismctl man page and bash completion installed" \
	insh 'test -f /usr/share/man/man8/prismctl.8.gz &&
	      bash -c ". /usr/share/bash-completion/completions/prismctl && complete -p prismctl"'

# ---------------------------------------------------------------------------
# Build against the installed library with pkg-config.
# ---------------------------------------------------------------------------
cat > "$root/tmp/read_client.c" <<'EOF'
/* READ LEN bytes at ADDR of a prism-example-server, print them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <liburing-prism.h>

int main(int argc, char **argv)
{
	static _Alignas(8) unsigned char cbuf[1024], out[1024];
	const struct prism_msg *m = (const void *)out;
	struct sockaddr_prism dst;
	struct prism_chain_buf c;
	__u8 mac[6];
	const char *p;
	__u32 len;
	ssize_t n;
	int fd;

	if (argc != 6 || prism_parse_mac(argv[2], mac)) {
		fprintf(stderr, "usage: %s IFNAME MAC EP RKEY ADDR\n", argv[0]);
		return 2;
	}
	fd = prism_open(argv[1], 0, 0);
	if (fd < 0) {
		fprintf(stderr, "prism_open: %s\n", strerror(-fd));
		return 1;
	}
	prism_addr_init(&dst, mac, (__u32)strtoul(argv[3], NULL, 0));
	prism_chain_init(&c, cbuf, sizeof(cbuf), 1);
	prism_prep_read(&c, strtoull(argv[4], NULL, 0), strtoull(argv[5], NULL, 0), 32);
	n = prism_execute(fd, &dst, &c, out, sizeof(out));
	if (n < 0) {
		fprintf(stderr, "prism_execute: %s\n", strerror((int)-n));
		return 1;
	}
	if (m->status != PRISM_S_OK || !(p = prism_msg_data(m, 0, &len))) {
		fprintf(stderr, "READ: %s\n", prism_status_str(m->status));
		return 1;
	}
	printf("%.*s\n", (int)strnlen(p, len), p);
	return 0;
}
EOF
cp "$repo/liburing-prism/examples/server.c" "$root/tmp/server.c" || bail "examples/server.c"
check "client and server compile with pkg-config --cflags --libs liburing-prism" \
	insh 'cd /tmp && pkg-config --exists liburing-prism &&
	      cc -O2 -Wall -o read_client read_client.c $(pkg-config --cflags --libs liburing-prism) &&
	      cc -O2 -Wall -o server server.c $(pkg-config --cflags --libs liburing-prism)'
check "the client links the shared liburing-prism.so.1" \
	insh 'ldd /tmp/read_client | tee /dev/stderr |
	      grep -E "liburing-prism\.so\.1 => (/usr)?/lib/[^ ]*/liburing-prism\.so\.1 "'

# Two namespaces joined by a veth pair; ip netns runs outside the chroot
# (the netns files live in the guest's /run); processes enter them.
setup_ns() {
	ip netns add "$NS_S" && ip netns add "$NS_C" &&
	ip -n "$NS_S" link add vs type veth peer name vc netns "$NS_C" &&
	ip -n "$NS_S" link set vs up && ip -n "$NS_C" link set vc up &&
	ip -n "$NS_S" link set lo up && ip -n "$NS_C" link set lo up
}
modprobe veth 2> /dev/null
check "two network namespaces joined by a veth pair" setup_ns
nsenter --net="/run/netns/$NS_S" -- chroot "$root" /tmp/server vs "$EP" > "$T/server" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
	grep -q '^mac=' "$T/server" && break
	kill -0 "$server_pid" 2> /dev/null || break
	sleep 0.2
done
mac= ep= rkey= addr=
for kv in $(grep '^mac=' "$T/server"); do
	case $kv in
	mac=*) mac=${kv#mac=} ;; ep=*) ep=${kv#ep=} ;;
	rkey=*) rkey=${kv#rkey=} ;; addr=*) addr=${kv#addr=} ;;
	esac
done
if [ -n "$addr" ]; then
	ok "server (built in the chroot) serves ep $ep on vs"
else
	cp "$T/server" "$T/log"
	not_ok "server (built in the chroot) started"
fi
check "client READs 'hello from the server' across the namespaces" \
	sh -c "nsenter --net=/run/netns/$NS_C -- chroot $root /tmp/read_client vc '$mac' '$ep' '$rkey' \
	       \$(printf '0x%x' \$(( ${addr:-0} + 0x1000 ))) | tee /dev/stderr | grep -qx 'hello from the server'"
kill "$server_pid" 2> /dev/null
wait "$server_pid" 2> /dev/null
server_pid=

# ---------------------------------------------------------------------------
# Remove.
# ---------------------------------------------------------------------------
rmmod prism 2> /dev/null
check "dpkg -r of the four packages" \
	insh 'dpkg -r liburing-prism-dev liburing-prism prism-tools prism-dkms'
check "no prism module left under /lib/modules, no DKMS tree, no files" \
	sh -c "! find $root/lib/modules -name 'prism.ko*' | grep . &&
	       ! ls -d $root/var/lib/dkms/prism 2> /dev/null && ! ls -d $root/usr/src/prism-* 2> /dev/null &&
	       [ ! -e $root/usr/sbin/prismctl ] && ! ls $root/usr/lib/*/liburing-prism* 2> /dev/null &&
	       [ ! -e $root/usr/include/liburing-prism.h ] &&
	       ! chroot $root modprobe -n prism 2> /dev/null"
check "dpkg -P prism-dkms purges the conffile" \
	sh -c "[ -e $root/etc/modprobe.d/prism.conf ] && chroot $root dpkg -P prism-dkms &&
	       [ ! -e $root/etc/modprobe.d/prism.conf ]"

cleanup
tap_finish
