#!/bin/sh
# Runs "$@" with a second host at hand for mpirun: a network namespace
# (named, and with the host name, "kf<pid>") joined to this one by a veth
# pair on a /24 of its own. mpirun reaches it through
# ssh-into-namespace.sh in place of ssh, and Open MPI's daemons and ranks
# talk over TCP on that link (OMPI_MCA_* below), as on two machines. The
# command sees the second host's name in $SECOND_HOST. Everything is
# removed on exit. Needs root (ip netns, veth).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=kf$$
subnet=10.77.$(($$ % 256))
cleanup() {
  ip netns del "$name" 2>/dev/null || true
  ip link del "${name}a" 2>/dev/null || true
}
trap cleanup EXIT INT TERM
ip netns add "$name"
ip link add "${name}a" type veth peer name "${name}b"
ip link set "${name}b" netns "$name"
ip addr add "$subnet.1/24" dev "${name}a"
ip link set "${name}a" up
ip netns exec "$name" ip addr add "$subnet.2/24" dev "${name}b"
ip netns exec "$name" ip link set "${name}b" up
ip netns exec "$name" ip link set lo up
export SECOND_HOST="$name"
export OMPI_MCA_plm_rsh_agent="$here/ssh-into-namespace.sh"
export OMPI_MCA_oob_tcp_if_include="$subnet.0/24"
export OMPI_MCA_btl_tcp_if_include="$subnet.0/24"
export OMPI_MCA_btl=self,vader,tcp
status=0
"$@" || status=$?
exit $status
