#!/bin/sh
# chutebox: starts the chutebox CLI (chutebox.mjs beside this script) on Node with a heap bounded to
# suit the device. V8 takes its heap limits only on its command line, so this runs before Node does,
# and replaces itself with it (exec): the process a supervisor started is the one that serves.
#
#   --max-heap MB        the old generation's limit in MiB (also CHUTEBOX_MAX_HEAP); default a quarter
#                        of MemTotal, between 16 and 256: 32 on a 128 MB router, 64 on a 256 MB one;
#                        for `emulate --fleet` (or --fleet-file, CHUTEBOX_FLEET, CHUTEBOX_FLEET_FILE),
#                        which runs on a developer's machine, not a router: half of MemTotal
#
# The young generation gets a 256th of it, between 1 and 16 MiB: 1 MiB for any default bound. See
# docs/decisions/0018-a-heap-bound-from-the-launcher.md. A fleet's old generation grows by half of
# what a collection left (docs/decisions/0073-a-fleet-device-leaves-when-idle.md).
set -eu

usage_error() {
  echo "chutebox: $1" >&2
  exit 2
}

heap=${CHUTEBOX_MAX_HEAP-}
given=${CHUTEBOX_MAX_HEAP+set}
fleet=${CHUTEBOX_FLEET-}${CHUTEBOX_FLEET_FILE-}
# Take --max-heap out of the arguments, keeping the others (and their order) for the CLI.
count=$#
while [ "$count" -gt 0 ]; do
  arg=$1
  shift
  count=$((count - 1))
  case $arg in
    --max-heap=*)
      heap=${arg#--max-heap=}
      given=set
      ;;
    --max-heap)
      [ "$count" -gt 0 ] || usage_error '--max-heap needs a value in MiB'
      heap=$1
      given=set
      shift
      count=$((count - 1))
      ;;
    --fleet | --fleet=* | --fleet-file | --fleet-file=*)
      fleet=set
      set -- "$@" "$arg"
      ;;
    *) set -- "$@" "$arg" ;;
  esac
done

if [ -z "$given" ]; then
  kib=0
  if [ -r /proc/meminfo ]; then
    while read -r name value _; do
      if [ "$name" = MemTotal: ]; then
        kib=$value
        break
      fi
    done < /proc/meminfo
  fi
  if [ -n "$fleet" ]; then
    heap=$((kib / 2048))
    [ "$heap" -le 65536 ] || heap=65536
  else
    heap=$((kib / 4096))
    [ "$heap" -le 256 ] || heap=256
  fi
  [ "$heap" -ge 16 ] || heap=16
fi
case $heap in
  '' | *[!0-9]*) usage_error "--max-heap (CHUTEBOX_MAX_HEAP) must be a whole number of MiB from 16 to 65536, not \"$heap\"" ;;
esac
if [ "${#heap}" -gt 5 ] || [ "$heap" -lt 16 ] || [ "$heap" -gt 65536 ]; then
  usage_error "--max-heap (CHUTEBOX_MAX_HEAP) must be a whole number of MiB from 16 to 65536, not \"$heap\""
fi
young=$((heap / 256))
[ "$young" -ge 1 ] || young=1
[ "$young" -le 16 ] || young=16

# This script's folder, through the link npm makes in node_modules/.bin.
script=$0
while [ -L "$script" ]; do
  target=$(readlink "$script")
  case $target in
    /*) script=$target ;;
    *) script=$(dirname "$script")/$target ;;
  esac
done
# A fleet's old generation grows by half of what a full collection left, not by up to four times:
# its devices come and go, and VmRSS follows the devices built (docs/decisions/0073-a-fleet-device-leaves-when-idle.md).
growing=
[ -z "$fleet" ] || growing=--heap-growing-percent=50
exec "${CHUTEBOX_NODE:-node}" "--max-old-space-size=$heap" "--max-semi-space-size=$young" ${growing:+"$growing"} "$(dirname "$script")/chutebox.mjs" "$@"
