#!/bin/sh
# kv-redis [--requests N] [--clients C] [--size BYTES]: the production-like service run.
# Debian's redis-server (jemalloc, event loop, copy-on-write-free config) on loopback in
# the guest, driven by its own redis-benchmark client: SET, GET, LPUSH, LPOP, HSET with
# values of --size bytes. Prints the benchmark's summary and one RESULT line whose pid is
# the server's, so `foliotrace replay --pid` or `--comm redis-server` picks it.
set -u
N=10000 C=8 D=256
while [ $# -gt 0 ]; do
	case "$1" in
	--requests) N=$2; shift 2 ;;
	--clients) C=$2; shift 2 ;;
	--size) D=$2; shift 2 ;;
	*) echo "usage: kv-redis [--requests N] [--clients C] [--size BYTES]" >&2; exit 2 ;;
	esac
done
command -v redis-server >/dev/null || { echo "kv-redis: redis-server is not in this guest" >&2; exit 1; }
redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
	--logfile /tmp/redis.log &
srv=$!
i=0
until [ "$(redis-cli -p 6379 ping 2>/dev/null)" = PONG ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "kv-redis: redis-server did not start" >&2; kill $srv; exit 1; }
	sleep 0.1
done
# -q still redraws a progress line with \r: keep only the summary lines
redis-benchmark -p 6379 -q -n "$N" -c "$C" -d "$D" -t set,get,lpush,lpop,hset |
	tr '\r' '\n' | grep 'requests per second'
st=$?
redis-cli -p 6379 shutdown nosave >/dev/null 2>&1
wait $srv
echo "RESULT kv-redis pid=$srv requests=$N clients=$C size=$D status=$st"
exit $st
