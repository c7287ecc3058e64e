#!/usr/bin/env bash
# Builds a JRE base image offline, for machines that cannot pull images (CI here is one): a
# jlinked runtime from the local JDK, the few glibc libraries it needs, and busybox for a shell.
# Users with a registry build on eclipse-temurin:21-jre instead (the Dockerfile's default).
#
#   docker/build-base-image.sh [image]      # default kvorum/jre-base:local; skipped if present
#   FORCE=1 docker/build-base-image.sh      # rebuild
#
# Needs: a JDK 21+ with jlink (found by bin/find-java), a static busybox (Debian: busybox-static),
# a running Docker engine.
set -euo pipefail
image="${1:-kvorum/jre-base:local}"
if [ -z "${FORCE:-}" ] && docker image inspect "$image" > /dev/null 2>&1; then
  echo "base image $image exists (FORCE=1 rebuilds it)"
  exit 0
fi
jdk=$("$(dirname "${BASH_SOURCE[0]}")/../bin/find-java" --jdk)
jlink="$jdk/bin/jlink"
[ -x "$jlink" ] || { echo "no jlink in $jdk: point KVORUM_JAVA_HOME at a full JDK 21+" >&2; exit 1; }
busybox=$(command -v busybox || true)
# ldd fails on a static binary; that failure is the answer wanted.
if [ -z "$busybox" ] || [[ "$(ldd "$busybox" 2>&1 || true)" != *"not a dynamic"* ]]; then
  echo "need a static busybox (apt-get install busybox-static)" >&2
  exit 1
fi
libdir=/usr/lib/x86_64-linux-gnu
[ -d "$libdir" ] || { echo "this script knows x86_64 Debian/Ubuntu library paths only" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root"/{usr/bin,usr/lib,etc,tmp,var/lib/kvorum,opt,lib64,home/kvorum,root}
ln -s usr/bin "$root/bin"
ln -s usr/lib "$root/lib"
chmod 1777 "$root/tmp"

"$jlink" --add-modules java.base,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.sql,java.xml,java.instrument,jdk.crypto.ec,jdk.unsupported,jdk.management,jdk.jfr,jdk.zipfs,jdk.naming.dns,jdk.attach,jdk.jcmd \
  --strip-debug --no-man-pages --no-header-files --compress=zip-6 --output "$root/opt/java"

for lib in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 \
  libresolv.so.2 libutil.so.1 libnss_files.so.2 libnss_dns.so.2 libgcc_s.so.1 libstdc++.so.6 \
  libz.so.1; do
  cp -L "$libdir/$lib" "$root/usr/lib/$lib"
done
mkdir -p "$root/usr/lib/x86_64-linux-gnu"
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/ld-linux-x86-64.so.2"

cp "$busybox" "$root/usr/bin/busybox"
for applet in sh ash cat chmod chown cp date env grep hostname id kill ls mkdir mv nc ps rm \
  sleep tail tr wget; do
  ln -s busybox "$root/usr/bin/$applet"
done

cat > "$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
kvorum:x:10001:10001:kvorum:/home/kvorum:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PASSWD
cat > "$root/etc/group" <<'GROUP'
root:x:0:
kvorum:x:10001:
nogroup:x:65534:
GROUP
echo "hosts: files dns" > "$root/etc/nsswitch.conf"
chown 10001:10001 "$root/var/lib/kvorum" "$root/home/kvorum"

tar -C "$root" --numeric-owner -cf "$work/rootfs.tar" .
docker import \
  -c 'ENV JAVA_HOME=/opt/java' \
  -c 'ENV PATH=/opt/java/bin:/usr/bin:/bin' \
  -c 'ENV LANG=C.UTF-8' \
  "$work/rootfs.tar" "$image" > /dev/null
echo "built $image ($(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1e6}'))"
