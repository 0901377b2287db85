#ifndef DOCPREVIEW_PROCESS_CONTROL_H
#define DOCPREVIEW_PROCESS_CONTROL_H

#include <stddef.h>
#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated), its stdin and stdout connected to new
/// pipes; stderr is shared, every other descriptor closed. The parent's ends are close-on-exec, so a child started at the same time by another
/// thread never holds them (it would keep a pipe open after this child died). Returns 0 and sets
/// `pid`, `input` (write end, the child's stdin) and `output` (read end, its stdout), or an errno.
int docpreview_spawn_piped(const char *path, char *const argv[], char *const envp[], pid_t *pid, int *input, int *output);

/// Starts `path` with `argv` and `envp` (NULL-terminated), its stdin /dev/null and its stdout and
/// stderr one new pipe, every other descriptor closed (a tool whose whole output is read). Returns
/// 0 and sets `pid` and `output` (the read end, close-on-exec), or an errno.
int docpreview_spawn_merged(const char *path, char *const argv[], char *const envp[], pid_t *pid, int *output);

/// How a renderer child left the host's network before main: 0 not at all, 1 a network
/// namespace of its own, 2 a user namespace with a network namespace.
int docpreview_network_isolation(void);

/// Installs a seccomp filter on every thread of the process: execve/execveat, fork/vfork, clone
/// without CLONE_THREAD, ptrace and process_vm_writev fail with EPERM (clone3 with ENOSYS, so
/// threads are made with clone); socket() only for AF_UNIX. Returns 0, or an errno (ENOSYS off x86-64).
int docpreview_restrict_syscalls(void);

/// Confines this process's file access for good (Landlock): under `readable` paths, read and
/// execute; under `writable` ones, everything; nowhere else, nothing (paths that do not exist are
/// skipped). Returns 0, or an errno (ENOSYS, EOPNOTSUPP where the kernel has no Landlock).
int docpreview_restrict_files(const char *const readable[], int readable_count,
                              const char *const writable[], int writable_count);

/// Confines this process's TCP for good (Landlock's network rights, Linux 6.7): connections to
/// `port` only (on any address), no listening. Returns 0, or an errno (EOPNOTSUPP where the kernel's
/// Landlock has no network rights).
int docpreview_restrict_connect(int port);

/// The paths of the shared objects this process has loaded (dl_iterate_phdr), one per line, into
/// `buffer` (NUL-terminated when they fit). Returns the bytes they need: more than `size`, and the
/// list was cut.
size_t docpreview_loaded_objects(char *buffer, size_t size);

/// Arms this process's one alarm: after `seconds`, whatever the process is doing (a library call
/// that cannot be interrupted included), `message` is written to `descriptor` and the process ends
/// with `status`, from a SIGALRM handler that makes async-signal-safe calls only. No thread is
/// started; SIGALRM is unblocked on the calling thread (a parent's mask survives exec). Arming
/// again replaces the alarm. Returns 0, or an errno.
int docpreview_watchdog_arm(double seconds, const char *message, int descriptor, int status);

/// Stops the alarm, if one is armed.
void docpreview_watchdog_disarm(void);

/// For a short-lived process that renders one file: the main thread's next `bytes` of large blocks
/// (page bitmaps, encoder buffers) come from one stretch of heap advised for transparent huge pages,
/// so the kernel fills it 2 MiB at a time instead of faulting in every 4 KiB page; freed blocks are
/// kept for reuse. Other threads' arenas are untouched. Returns 0, or an errno (ENOTSUP where the heap
/// is not one contiguous range); where transparent huge pages are off the advice does nothing.
int docpreview_use_huge_page_heap(size_t bytes);

/// For a long-running server: blocks of `bytes` and more are mapped from the kernel and unmapped when
/// freed, instead of malloc's dynamic threshold moving them into arenas that keep every page a burst
/// touched. (A shim: mallopt's constants are macros Swift does not import.) Returns 0, or EINVAL.
int docpreview_map_large_blocks(size_t bytes);

/// For every process: no fast bins. glibc keeps small freed blocks (past its per-thread cache) in
/// fast bins and sweeps them all into its ordinary bins before any allocation of 1 KiB or more; a
/// page request's reply buffer paid for the sweep of everything freed since the last one
/// (`malloc_consolidate`: a quarter of the server's and a tenth of a renderer child's CPU over R's
/// manual). Without them each block is merged once, when freed. Returns 0, or EINVAL.
int docpreview_skip_fast_bins(void);

#endif
