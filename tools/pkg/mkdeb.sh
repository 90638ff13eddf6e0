#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the PRISM Debian packages with plain dpkg-deb (no debhelper).
#
# Usage: tools/pkg/mkdeb.sh [--worktree] [OUTDIR]
#
# OUTDIR (default build/deb) receives, for version
# 0.1.0+git<YYYYMMDD>.<short hash> (the commit's date, UTC):
#   prism-dkms_<v>_all.deb           module sources in /usr/src/prism-<v> +
#                                    dkms.conf; postinst builds and installs
#                                    the module for the running kernel and
#                                    every installed kernel with headers (and
#                                    DKMS rebuilds it on kernel upgrades);
#                                    /etc/modprobe.d/prism.conf (conffile),
#                                    prism(7)
#   prism-tools_<v>_<arch>.deb       prismctl, prismctl(8), bash completion
#   liburing-prism_<v>_<arch>.deb    liburing-prism.so.1 (+ .so.1.0.0)
#   liburing-prism-dev_<v>_<arch>.deb  headers, .a, .so link, pkg-config
#                                    file, man pages (but prism(7))
# and removes older .debs there.  The packages are built from the committed
# tree (git archive HEAD), so their contents match the version; with
# --worktree from the working tree instead (tracked and untracked,
# non-ignored files, as they are now), the version then ends in ".dirty"
# if anything differs from HEAD.
#
# Environment: PRISM_DEB_MAINTAINER (default "PRISM developers
# <prism@localhost>"), CC, CFLAGS.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

worktree=0
if [ "${1:-}" = --worktree ]; then
	worktree=1
	shift
fi
case ${1:-} in -h|--help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
out=${1:-build/deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)

say() { echo "mkdeb: $*" >&2; }
die() { say "$*"; exit 1; }

for t in dpkg-deb dpkg-architecture dpkg-shlibdeps git make gzip; do
	command -v "$t" > /dev/null || die "$t is missing (tools/install-deps.sh)"
done

maint=${PRISM_DEB_MAINTAINER:-PRISM developers <prism@localhost>}
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
hash=$(git rev-parse --short HEAD)
date=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d HEAD)
version=0.1.0+git$date.$hash
if [ "$worktree" = 1 ] && [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	version=$version.dirty
fi
umask 022

work=$(mktemp -d "$out/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src"
if [ "$worktree" = 1 ]; then
	git ls-files -z --cached --others --exclude-standard |
		(while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
		tar --null -T - -cf - | tar -C "$src" -xf -
else
	git archive --format=tar HEAD | tar -C "$src" -xf -
fi
say "version $version, from $([ "$worktree" = 1 ] && echo "the working tree" || echo "commit $hash")"

# ---------------------------------------------------------------------------
# Userspace builds, installed into one staging tree, then split.
# ---------------------------------------------------------------------------
inst=$work/inst
libdir=/usr/lib/$multiarch
make -s -C "$src/liburing-prism" all >&2
make -s -C "$src/liburing-prism" install DESTDIR="$inst" PREFIX=/usr LIBDIR="$libdir" >&2
make -s -C "$src/tools/prismctl" prismctl >&2
make -s -C "$src/tools/prismctl" install DESTDIR="$inst" PREFIX=/usr >&2
# Debian policy: man pages compressed (.so links resolve through gzip).
find "$inst/usr/share/man" -type f -name '*.[0-9]' -exec gzip -9n {} +
# Strip binaries (debug info stays in the build tree).
strip --strip-unneeded "$inst/usr/sbin/prismctl" "$inst$libdir/liburing-prism.so.1.0.0"
strip --strip-debug "$inst$libdir/liburing-prism.a"

# dpkg-shlibdeps wants a debian/control next to it; the shared library
# gets its own shlibs entry.
shlibdeps() {
	local d=$work/shlibdeps
	mkdir -p "$d/debian"
	printf 'Source: prism\n\nPackage: x\nArchitecture: any\n' > "$d/debian/control"
	(cd "$d" && dpkg-shlibdeps -O "$@" 2> /dev/null) | sed -n 's/^shlibs:Depends=//p'
}

# pkg NAME ARCH SECTION DEPENDS SHORT LONG...: finish staging dir $work/pkg/NAME.
pkg_control() {
	local name=$1 parch=$2 section=$3 depends=$4 short=$5 d=$work/pkg/$1 size
	shift 5
	mkdir -p "$d/DEBIAN" "$d/usr/share/doc/$name"
	cat > "$d/usr/share/doc/$name/copyright" <<-EOF
	Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
	Upstream-Name: prism

	Files: *
	License: GPL-2.0 (kernel module, prismctl) and MIT (liburing-prism and its man pages, prism(7) included)
	 On Debian systems the GPL-2 is in /usr/share/common-licenses/GPL-2.
	EOF
	size=$(du -sk --exclude=DEBIAN "$d" | cut -f1)
	{
		echo "Package: $name"
		echo "Source: prism"
		echo "Version: $version"
		echo "Architecture: $parch"
		echo "Maintainer: $maint"
		echo "Installed-Size: $size"
		[ -n "$depends" ] && echo "Depends: $depends"
		[ -n "${PKG_EXTRA:-}" ] && printf '%s\n' "$PKG_EXTRA"
		echo "Section: $section"
		echo "Priority: optional"
		echo "Description: $short"
		local l
		for l in "$@"; do
			if [ -z "$l" ]; then echo " ."; else echo " $l"; fi
		done
	} > "$d/DEBIAN/control"
	(cd "$d" && find . -path ./DEBIAN -prune -o -type f -print0 | sort -z |
		xargs -0r md5sum | sed 's, \./, ,') > "$d/DEBIAN/md5sums"
	find "$d" -type d -exec chmod 0755 {} +
	dpkg-deb --root-owner-group -Zxz --build "$d" "$out/${name}_${version}_${parch}.deb" > /dev/null
	say "built ${name}_${version}_${parch}.deb"
}

# maint_script FILE COMMENT...: a maintainer script of prism-dkms, executable:
# "#!/bin/sh", the COMMENT lines as comments, "set -e", the module's NAME
# and VERSION, then the rest of the script from stdin as it is.
maint_script() {
	local f=$1 l
	shift
	{
		echo "#!/bin/sh"
		for l in "$@"; do
			echo "# $l"
		done
		echo "set -e"
		echo "NAME=prism"
		echo "VERSION=$version"
		cat
	} > "$f"
	chmod 0755 "$f"
}

rm -f "$out"/prism-dkms_*.deb "$out"/prism-tools_*.deb "$out"/liburing-prism_*.deb \
	"$out"/liburing-prism-dev_*.deb

# ---------------------------------------------------------------------------
# liburing-prism: the shared library.
# ---------------------------------------------------------------------------
p=$work/pkg/liburing-prism
mkdir -p "$p$libdir"
cp -a "$inst$libdir"/liburing-prism.so.1 "$inst$libdir"/liburing-prism.so.1.0.0 "$p$libdir/"
deps=$(shlibdeps -e"$p$libdir/liburing-prism.so.1.0.0")
[ -n "$deps" ] || deps="libc6 (>= 2.34), liburing2 (>= 2.1)"
mkdir -p "$p/DEBIAN"
echo "liburing-prism 1 liburing-prism (>= $version)" > "$p/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$p/DEBIAN/triggers"
PKG_EXTRA="Multi-Arch: same" pkg_control liburing-prism "$arch" libs "$deps" \
	"PRISM remote memory operations library (shared library)" \
	"liburing-prism builds chains of one-sided remote memory operations" \
	"(READ, WRITE, CAS, ALLOC, ...) for the PRISM kernel module and submits" \
	"them through PRISM sockets, blocking or through io_uring." \
	"" \
	"This package contains the shared library."

# ---------------------------------------------------------------------------
# liburing-prism-dev: headers, static library, .so link, .pc, man pages.
# ---------------------------------------------------------------------------
p=$work/pkg/liburing-prism-dev
mkdir -p "$p$libdir" "$p/usr/share"
cp -a "$inst$libdir"/liburing-prism.a "$inst$libdir"/liburing-prism.so "$inst$libdir/pkgconfig" "$p$libdir/"
cp -a "$inst/usr/include" "$p/usr/"
mkdir -p "$p/usr/share/man"
cp -a "$inst/usr/share/man/man3" "$inst/usr/share/man/man7" "$p/usr/share/man/"
# prism(7), the socket family's page, goes with the module (prism-dkms).
rm "$p/usr/share/man/man7/prism.7.gz"
PKG_EXTRA="Multi-Arch: same" pkg_control liburing-prism-dev "$arch" libdevel \
	"liburing-prism (= $version), liburing-dev" \
	"PRISM remote memory operations library (development files)" \
	"liburing-prism builds chains of one-sided remote memory operations" \
	"(READ, WRITE, CAS, ALLOC, ...) for the PRISM kernel module and submits" \
	"them through PRISM sockets, blocking or through io_uring." \
	"" \
	"This package contains the headers (including <linux/prism.h>), the" \
	"static library, the pkg-config file and the man pages."

# ---------------------------------------------------------------------------
# prism-tools: prismctl.
# ---------------------------------------------------------------------------
p=$work/pkg/prism-tools
mkdir -p "$p/usr/sbin" "$p/usr/share/man" "$p/usr/share/bash-completion"
cp -a "$inst/usr/sbin/prismctl" "$p/usr/sbin/"
cp -a "$inst/usr/share/man/man8" "$p/usr/share/man/"
cp -a "$inst/usr/share/bash-completion/completions" "$p/usr/share/bash-completion/"
deps=$(shlibdeps -e"$p/usr/sbin/prismctl")
[ -n "$deps" ] || deps="libc6 (>= 2.34), libmnl0 (>= 1.0.3)"
PKG_EXTRA="Recommends: prism-dkms" pkg_control prism-tools "$arch" net "$deps" \
	"PRISM remote memory operations (administration tool)" \
	"prismctl shows the endpoints, memory regions, free lists, peers and" \
	"counters of the PRISM kernel module over generic netlink and manages" \
	"the free lists of its endpoints."

# ---------------------------------------------------------------------------
# prism-dkms: module sources, dkms.conf, maintainer scripts, modprobe.d.
# ---------------------------------------------------------------------------
p=$work/pkg/prism-dkms
d=$p/usr/src/prism-$version
mkdir -p "$d/uapi" "$p/etc/modprobe.d" "$p/usr/share/man/man7"
cp -a "$inst/usr/share/man/man7/prism.7.gz" "$p/usr/share/man/man7/"
cp -a "$src/Kbuild" "$d/"
cp -a "$src/kmod" "$d/"
cp -a "$src/uapi/linux" "$d/uapi/"
find "$d" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
	-o -name '.*.cmd' -o -name modules.order -o -name Module.symvers \) -delete
cat > "$d/dkms.conf" <<EOF
# DKMS configuration of the PRISM kernel module (tools/pkg/mkdeb.sh).
PACKAGE_NAME="prism"
PACKAGE_VERSION="$version"
# kbuild reads the top-level Kbuild, which descends into kmod/.
MAKE[0]="make -C \${kernel_source_dir} M=\${dkms_tree}/\${PACKAGE_NAME}/\${PACKAGE_VERSION}/build modules"
CLEAN="make -C \${kernel_source_dir} M=\${dkms_tree}/\${PACKAGE_NAME}/\${PACKAGE_VERSION}/build clean"
BUILT_MODULE_NAME[0]="prism"
BUILT_MODULE_LOCATION[0]="kmod/"
# Debian's dkms installs into /lib/modules/<kernel>/updates/dkms anyway.
DEST_MODULE_LOCATION[0]="/updates/dkms"
# Rebuild for every new kernel (its headers package triggers dkms).
AUTOINSTALL="yes"
EOF
cat > "$p/etc/modprobe.d/prism.conf" <<'EOF'
# Options of the PRISM kernel module (see modinfo prism), e.g. another
# address family number or EtherType than the defaults:
# options prism family=25 ethertype=0x88B5
EOF
mkdir -p "$p/DEBIAN"
echo /etc/modprobe.d/prism.conf > "$p/DEBIAN/conffiles"
maint_script "$p/DEBIAN/postinst" \
	"prism-dkms postinst: register the module sources with DKMS, then build" \
	"and install the module for the running kernel and for every installed" \
	"kernel that has its headers.  A failure for the running kernel (with" \
	"headers) fails the configuration; for other kernels it is a warning." <<'EOF'

case "$1" in
configure)
	if ! dkms status -m "$NAME" -v "$VERSION" | grep -q .; then
		dkms add -m "$NAME" -v "$VERSION"
	fi
	running=$(uname -r)
	kernels=$running
	for b in /lib/modules/*/build; do
		[ -d "$b" ] || continue
		k=${b#/lib/modules/}
		k=${k%/build}
		[ "$k" = "$running" ] || kernels="$kernels $k"
	done
	for k in $kernels; do
		if [ ! -d "/lib/modules/$k/build" ]; then
			echo "prism-dkms: no headers for kernel $k: not building the module for it" >&2
			continue
		fi
		if dkms build -m "$NAME" -v "$VERSION" -k "$k" &&
		   dkms install -m "$NAME" -v "$VERSION" -k "$k" --force; then
			continue
		fi
		if [ "$k" = "$running" ]; then
			echo "prism-dkms: building the module for the running kernel $k failed" >&2
			exit 1
		fi
		echo "prism-dkms: warning: building the module for kernel $k failed" >&2
	done
	;;
esac
exit 0
EOF
maint_script "$p/DEBIAN/prerm" \
	"prism-dkms prerm: remove the module from every kernel and from DKMS." <<'EOF'

case "$1" in
remove|upgrade|deconfigure)
	if dkms status -m "$NAME" -v "$VERSION" | grep -q .; then
		dkms remove -m "$NAME" -v "$VERSION" --all || true
	fi
	;;
esac
exit 0
EOF
PKG_EXTRA= pkg_control prism-dkms all kernel \
	"dkms (>= 2.1.0.0), make" \
	"PRISM remote memory operations kernel module (DKMS sources)" \
	"PRISM is an address family for one-sided remote memory operations" \
	"(READ, WRITE, CAS, ALLOC, ...) over raw Ethernet, served by the kernel" \
	"of the target without waking its process." \
	"" \
	"This package holds the sources of the prism module; DKMS builds it for" \
	"the installed kernels and again for every new kernel.  Options go to" \
	"/etc/modprobe.d/prism.conf.  The socket interface is described in" \
	"prism(7)."

ls -l "$out"/*.deb >&2
