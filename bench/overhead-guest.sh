#!/bin/sh
# bench/overhead-guest.sh - runs inside the guest (run.sh --mode ready: LTTng's session
# daemon up, the probes loaded, no session): each workload of LIST timed in each of MODES,
# the modes in turn, ROUNDS times. bench/overhead.sh copies it in and reads its output.
#
#   sh overhead-guest.sh ROUNDS SUBBUF NSUBBUF EVENTS LIST MODES [LTTNG_OPTS]
#
# LIST: one workload a line, "NAME<TAB>COMMAND ARGS". MODES, space-separated:
#   plain     no session
#   traced    the session record uses (run.sh, guest-kernel/init): channel chan0 of
#             NSUBBUF sub-buffers of SUBBUF per CPU, EVENTS, written to the share
#   tmpfs     the same, written to the guest's tmpfs (no 9p: the consumer's I/O cost)
#   snapshot  the same channel in a snapshot session: the ring buffers overwrite and the
#             consumer writes nothing (what the probes and the ring buffer cost alone)
#   faults    traced with anon_fault alone: one event per fault and nothing else (the floor;
#             before kernel patch 0006, half the events of a fault)
#   allocs    traced with anon_alloc too: a fault's allocations as events of their own,
#             what recordings paid before kernel patch 0006 (two events per fault)
#   pagealloc traced with LTTng's stock kmem_mm_page_alloc alone: about one event per
#             fault of a 4K-fault loop (its page; a page table now and then) with 5
#             fields against anon_fault's 15, so that against `faults` it splits an
#             event's cost into what every event pays and what its fields add
#   filtered  traced with anon_fault alone under a filter no fault passes (mm == 0): the
#             kernel's work for the event (local_clock() at entry and exit, the fallback
#             reason), the tracepoint call, LTTng's checks and its filter, and nothing
#             written; against `faults` it splits off what the ring buffer costs
#   pinned    traced, the consumer daemon's threads pinned to the last CPU
#   unbatched traced with EVENTS less anon_fault_batch: each fault its own anon_fault
#             event, as before kernel patch 0008
#   batch     traced with anon_fault_batch alone: the faults in batches of up to 64
#             records, one event each (kernel patch 0008), and nothing else
# LTTNG_OPTS: more enable-channel options (e.g. "--read-timer=0"). Guest time from
# /proc/uptime (10 ms steps) around the workload alone: session setup and the final flush
# (lttng stop) are outside it. One line per run:
#
#   OH name=NAME round=I mode=MODE seconds=S discarded=N minflt=M
set -u
rounds=$1 subbuf=$2 nsubbuf=$3 events=$4 list=$5 modes=$6 opts=${7:-}
up() { cut -d' ' -f1 /proc/uptime; }
# one run of CMD: its start and end (uptime seconds) and the minflt of its RESULT line
# (none for kv-redis) into /tmp/oh.t
timed() { # timed NAME CMD...
	n=$1
	shift
	t0=$(up)
	"$@" > /tmp/oh.out 2>&1
	st=$?
	t1=$(up)
	[ $st = 0 ] || { echo "overhead-guest: $n exited with status $st: $(tail -3 /tmp/oh.out)"; exit 1; }
	mf=$(sed -n 's/^RESULT.* minflt=\([0-9]*\).*/\1/p' /tmp/oh.out | tail -1)
	echo "$t0 $t1 ${mf:-0}" > /tmp/oh.t
}
session() { # session MODE: create and start the session of MODE
	evs=$events filter=
	case $1 in
	faults) evs=anon_fault ;;
	# the recording's events, the faults one event each (no anon_fault_batch)
	unbatched) evs=$(echo "$events" | sed 's/,anon_fault_batch//') ;;
	# the faults alone, in batches (kernel patch 0008)
	batch) evs=anon_fault_batch ;;
	filtered) evs=anon_fault filter='mm == 0' ;;
	allocs) evs=$events,anon_alloc ;;
	pagealloc) evs=kmem_mm_page_alloc ;;
	esac
	case $1 in
	snapshot) lttng create oh --snapshot --output=/tmp/oh-snap > /dev/null ;;
	tmpfs) lttng create oh --output=/tmp/oh-trace > /dev/null ;;
	*) lttng create oh --output=/mnt/out/oh-trace > /dev/null ;;
	esac &&
		lttng enable-channel -k --subbuf-size="$subbuf" --num-subbuf="$nsubbuf" $opts chan0 \
			> /dev/null &&
		lttng enable-event -k -c chan0 "$evs" ${filter:+--filter "$filter"} > /dev/null &&
		lttng start > /dev/null || { echo "overhead-guest: lttng setup failed ($1)"; exit 1; }
	if [ "$1" = pinned ]; then
		last=$(($(nproc) - 1))
		for p in $(pidof lttng-consumerd); do
			for t in /proc/$p/task/*; do
				taskset -p -c $last "${t##*/}" > /dev/null ||
					{ echo "overhead-guest: cannot pin the consumer"; exit 1; }
			done
		done
	fi
}
report() { # report NAME ROUND MODE DISCARDED
	read -r t0 t1 mf < /tmp/oh.t
	echo "OH name=$1 round=$2 mode=$3 seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') discarded=$4 minflt=$mf"
}
tab=$(printf '\t')
i=1
while [ $i -le "$rounds" ]; do
	# rotate the modes' order from round to round: warm-up and drift fall on all of them
	set -- $modes
	k=1
	while [ $k -lt $i ] && [ $k -lt $# ]; do
		m=$1
		shift
		set -- "$@" "$m"
		k=$((k + 1))
	done
	order="$*"
	while IFS="$tab" read -r name cmd; do
		[ -n "$name" ] || continue
		for m in $order; do
			if [ $m = plain ]; then
				timed "$name" $cmd
				report "$name" $i plain 0
				continue
			fi
			session $m
			timed "$name" $cmd
			lttng stop > /dev/null
			lttng list oh > /tmp/oh.list 2>&1
			lttng destroy oh > /dev/null
			rm -rf /mnt/out/oh-trace /tmp/oh-trace /tmp/oh-snap
			# a snapshot session overwrites by design: its count is not a loss of ours
			report "$name" $i $m "$([ $m = snapshot ] && echo 0 ||
				awk '/Discarded events:/ { n += $3 } END { print n + 0 }' /tmp/oh.list)"
		done
	done < "$list"
	i=$((i + 1))
done
