#define _GNU_SOURCE  // unshare, CLONE_NEWNET
#include "process_control.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int network_isolation = 0;

/// Runs before main (and before any thread exists) in every process of this binary; in a renderer
/// child only, it leaves the host's network: a network namespace of its own (root), else a user
/// namespace with one (unprivileged, where the kernel allows it; that needs a single thread,
/// which is why this happens here and not in Swift). The new namespace has only a down loopback.
__attribute__((constructor)) static void docpreview_isolate_render_child(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 2 || strcmp(argv[1], "render-child") != 0) return;
    if (unshare(CLONE_NEWNET) == 0) {
        network_isolation = 1;
    } else if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
        network_isolation = 2;
    }
}

int docpreview_network_isolation(void) { return network_isolation; }

#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define REFUSE BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define ON_SYSCALL(nr, jump) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, (jump))

int docpreview_restrict_syscalls(void) {
#if defined(__x86_64__)
    struct sock_filter filter[] = {
        // Only x86-64 system calls: the 32-bit and x32 entry points would bypass the numbers below.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),  // __X32_SYSCALL_BIT
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        // No new programs, no debugging of other processes, no new processes (threads stay allowed).
        ON_SYSCALL(__NR_execve, 1), REFUSE,
        ON_SYSCALL(__NR_execveat, 1), REFUSE,
        ON_SYSCALL(__NR_fork, 1), REFUSE,
        ON_SYSCALL(__NR_vfork, 1), REFUSE,
        ON_SYSCALL(__NR_ptrace, 1), REFUSE,
        ON_SYSCALL(__NR_process_vm_writev, 1), REFUSE,
        // clone3 passes its flags in memory, which a filter cannot read: ENOSYS makes glibc use clone.
        ON_SYSCALL(__NR_clone3, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
        ON_SYSCALL(__NR_clone, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),  // clone's flags
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
        ALLOW,
        REFUSE,
        // Sockets: local ones only (AF_UNIX); no Internet, netlink or packet sockets.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        ON_SYSCALL(__NR_socket, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
        REFUSE,
        ALLOW,
    };
    struct sock_fprog program = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) return errno;
    return 0;
#else
    return ENOSYS;
#endif
}
