# bench/kprofile-leaves.awk - perf script's kernel samples (`perf script -F comm,ip,sym` of
# a `perf record -g` profile, as bench/kprofile-classes.awk reads them) counted by their
# leaf: the function of each sample's first frame, the one the sample interrupted; prints
# "FUNCTION SAMPLES" per function met. A sample taken while interrupts were off is
# delivered where they are turned back on (a cpu-clock sample is an hrtimer interrupt),
# so a leaf such as _raw_spin_unlock_irqrestore stands for the time before it.
/^[^ \t]/ { leaf = 1; next }
/^[ \t]+[0-9a-f]+ / {
	if (leaf) {
		sub(/\+0x[0-9a-f]+$/, "", $2)
		count[$2]++
		leaf = 0
	}
	next
}
/^$/ { leaf = 0 }
END { for (f in count) print f, count[f] }
