#!/bin/sh
# Runs "$@" with the system's Open MPI hidden: its directories covered by an
# empty one and its libraries and programs by /dev/null, in a mount
# namespace of this command alone (unshare -m, as root). What still runs
# takes nothing from the system's Open MPI.
set -e
[ "$KF_IN_NAMESPACE" = 1 ] || KF_IN_NAMESPACE=1 exec unshare -m "$0" "$@"
lib=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
empty=$(mktemp -d)
for dir in "$lib/openmpi" "$lib/pmix2" /usr/share/openmpi /etc/openmpi; do
  [ -d "$dir" ] && mount --bind "$empty" "$dir"
done
for file in /usr/bin/orterun /usr/bin/orted "$lib"/libmpi.so.40 "$lib"/libopen-pal.so.40 \
  "$lib"/libopen-rte.so.40 "$lib"/libpmix.so.2 "$lib"/libhwloc.so.15; do
  [ -e "$file" ] && mount --bind /dev/null "$(readlink -f "$file")"
done
exec "$@"
