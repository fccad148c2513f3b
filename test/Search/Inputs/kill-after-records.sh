#!/bin/sh
# kill-after-records.sh RECORDS COUNT COMMAND...: runs COMMAND in this
# process (exec) and kills it (SIGKILL) once the records file RECORDS (a
# search's candidates.jsonl) holds COUNT lines: a death mid-run whatever the
# machine's load. (A fixed delay can land in the job's start on a busy
# machine, where a death leaves MPI's collective calls waiting.) The watcher
# ends with the process.
records=$1
count=$2
shift 2
pid=$$
(
  while kill -0 "$pid" 2>/dev/null; do
    lines=$(wc -l < "$records" 2>/dev/null || echo 0)
    if [ "$lines" -ge "$count" ]; then
      kill -9 "$pid"
      exit 0
    fi
    sleep 0.1
  done
) > /dev/null 2>&1 &
exec "$@"
