# guest-kernel/events.sh - the LTTng kernel events a recording enables, as EVENTS (comma-
# separated): sourced by run.sh and by bench/overhead.sh, which traces the same events.
# One event per anonymous fault: anon_fault carries its allocation attempts (kernel patch
# 0006), so anon_alloc, which says the same again, is left off; FT_ANON_ALLOC=1 records it
# too, to check the two agree (tests/guest/one-event.sh; docs/events.md).
EVENTS=anon_fault,anon_zero_wp,anon_cow,anon_zap,anon_mm_dup
EVENTS=$EVENTS,sched_process_fork,sched_process_exec,sched_process_exit
EVENTS=$EVENTS,lttng_statedump_process_state
[ "${FT_ANON_ALLOC:-0}" = 0 ] || EVENTS=$EVENTS,anon_alloc
# The faults in batches of up to 64 records, one event each (kernel patch 0008 of 6.1,
# 0006 of 6.12; a third of the instructions: docs/benchmarks.md, "Batched fault records");
# anon_fault is not fired meanwhile. FT_FAULT_BATCH=0 records one anon_fault per fault.
[ "${FT_FAULT_BATCH:-1}" = 0 ] || EVENTS=$EVENTS,anon_fault_batch
# FT_EXTRA_EVENTS: more LTTng kernel events (comma-separated names), recorded beside these
# for an investigation read from the kept CTF trace (docs/guest.md, "Extra events")
[ -z "${FT_EXTRA_EVENTS:-}" ] || EVENTS=$EVENTS,$FT_EXTRA_EVENTS
