# bench/kprofile-classes.awk - perf script's kernel samples (`perf script -F comm,ip,sym`
# of a `perf record -g` profile: a line naming the task, then one "ADDR SYM+OFF" line per
# frame from the leaf up, a blank line after each sample) put in classes by their call
# chains, the first class whose functions appear in the chain; prints "CLASS SAMPLES" per
# class met. The classes, and why in this order, are in bench/host-kprofile.sh.
function has(re) { return chain ~ (" (" re ") ") }
function flush() {
	if (!insample)
		return
	c = "other"
	if (has("exit_mmap|do_vmi_munmap|vms_complete_munmap_vmas|unmap_region"))
		c = "teardown"
	else if (has("do_anonymous_page|alloc_anon_folio"))
		c = "fault:anon"
	else if (has("do_wp_page|wp_page_copy"))
		c = "fault:cow"
	else if (has("do_read_fault|do_cow_fault|do_shared_fault|filemap_map_pages|filemap_fault"))
		c = "fault:file"
	else if (has("exc_page_fault|asm_exc_page_fault"))
		c = "fault:entry"
	else if (has("do_execveat_common|bprm_execve"))
		c = "exec"
	else if (has("copy_process"))
		c = "fork"
	else if (has("do_exit"))
		c = "exit"
	else if (has("ksys_mmap_pgoff|vm_mmap_pgoff|__do_sys_brk|__x64_sys_brk"))
		c = "mmap"
	else if (has("ksys_read|ksys_write|vfs_read|vfs_write"))
		c = "rw"
	else if (has("do_syscall_64"))
		c = "syscall"
	count[c]++
	insample = 0
	chain = ""
}
/^[^ \t]/ { flush(); insample = 1; chain = " "; next }
/^[ \t]+[0-9a-f]+ / { sub(/\+0x[0-9a-f]+$/, "", $2); chain = chain $2 " "; next }
/^$/ { flush() }
END { flush(); for (c in count) print c, count[c] }
