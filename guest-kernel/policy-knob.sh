#!/bin/sh
# Print the 6.1 guest knob setting for a policy spec (docs/policies.md):
#   order0 -> none          mcpage:N -> N            thp -> thp (THP always, orders none)
#   mthp:16K,64K -> 2,4     (sizes are base page size * 2^order, 4K pages)
# Policies the knob cannot express (faultaround, adaptive) are simulation-only: exit 1.
set -eu
spec=${1:?usage: policy-knob.sh SPEC}
bad() { echo "policy-knob.sh: $*" >&2; exit 1; }
case "$spec" in
order0) echo none ;;
thp) echo thp ;;
mcpage:[1-8]) echo "${spec#mcpage:}" ;;
mcpage:*) bad "bad policy '$spec': order must be 1..8" ;;
mthp:*)
	orders=
	for s in $(echo "${spec#mthp:}" | tr ',' ' '); do
		case "$s" in
		8K) o=1 ;; 16K) o=2 ;; 32K) o=3 ;; 64K) o=4 ;; 128K) o=5 ;; 256K) o=6 ;;
		512K) o=7 ;; 1M) o=8 ;;
		*) bad "bad policy '$spec': size '$s' is not one of 8K..1M" ;;
		esac
		orders="${orders:+$orders,}$o"
	done
	[ -n "$orders" ] || bad "bad policy '$spec': no sizes"
	echo "$orders"
	;;
faultaround:*|adaptive|adaptive:*)
	bad "policy '$spec' is simulation-only: the 6.1 guest knob cannot express it" ;;
*) bad "bad policy '$spec': unknown policy" ;;
esac
