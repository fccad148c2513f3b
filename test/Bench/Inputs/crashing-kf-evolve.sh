#!/bin/sh
# Stands in for kf-evolve in harness.test: a search on a problem whose path
# contains "LeakyReLU" dies of a segmentation fault; everything else runs
# the real kf-evolve ($KF_EVOLVE).
case "$*" in
  *LeakyReLU*) case "$1" in compile) exec "$KF_EVOLVE" "$@" ;; esac
               kill -SEGV $$ ;;
esac
exec "$KF_EVOLVE" "$@"
