#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The file system of one configless node of tests/harness/cluster.sh (cluster.sh start
# --configless): run by cluster.sh inside `unshare --mount --propagation private`, it lays the
# node's own layer over the machine's /etc and /run (overlay mounts that only this process and
# its children see, so the machine is never changed), then execs COMMAND in place: the pid
# cluster.sh recorded stays the daemon's.
#
#   node_root.sh ROOT MUNGE_SOCKET -- COMMAND [ARG...]
#
# ROOT holds etc/ and run/, the node's layers (cluster.sh puts a whiteout at etc/slurm, so the
# node has no /etc/slurm, and the --node-etc files into etc/), and the overlays' work folders.
# slurmd writes /run/slurm/conf, its link to the conf-cache, into run/. MUNGE_SOCKET is the
# run's munged: the node reaches it at munge's default socket, which slurmd uses until it has
# fetched slurm.conf (and its AuthInfo) from slurmctld.
set -euo pipefail

[ $# -ge 4 ] && [ "$3" = -- ] || {
  echo "usage: node_root.sh ROOT MUNGE_SOCKET -- COMMAND [ARG...]" >&2
  exit 2
}
root=$1 sock=$2
shift 3

# layer DIR: /DIR becomes the overlay of the machine's /DIR under $root/DIR. Mounts below
# /DIR (a container's /etc/hosts, /run/user/...) are bound into the overlay again before it
# replaces /DIR.
layer() {
  local dir=$1 merged=$root/$1.merged sub
  mkdir -p "$merged" "$root/$dir.work"
  mount -t overlay "railguard-node-$dir" \
    -o "lowerdir=/$dir,upperdir=$root/$dir,workdir=$root/$dir.work" "$merged"
  while read -r sub; do
    mount --bind "$sub" "$merged/${sub#/"$dir"/}"
  done < <(awk -v d="/$dir/" 'substr($5, 1, length(d)) == d && index($5, "\\") == 0 { print $5 }' \
    /proc/self/mountinfo)
  mount --move "$merged" "/$dir"
}

layer etc
layer run
mkdir -p /run/munge
ln -sfn "$sock" /run/munge/munge.socket.2
exec "$@"
