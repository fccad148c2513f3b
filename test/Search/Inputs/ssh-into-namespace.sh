#!/bin/sh
# mpirun's "ssh" for with-second-host.sh: runs the command line for host
# $1 in the network namespace of that name, with that host name (a UTS
# namespace of its own), as ssh would on that machine: in a login's bare
# environment, nothing inherited from mpirun's.
host=$1
shift
exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="${HOME:-/root}" \
  ip netns exec "$host" unshare -u sh -c "hostname '$host' && $*"
