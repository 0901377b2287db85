#define _GNU_SOURCE  // pipe2
#include "process_control.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int docpreview_spawn_piped(const char *path, char *const argv[], char *const envp[], pid_t *pid, int *input, int *output) {
    int toChild[2], fromChild[2];
    if (pipe2(toChild, O_CLOEXEC) != 0) return errno;
    if (pipe2(fromChild, O_CLOEXEC) != 0) {
        int error = errno;
        close(toChild[0]);
        close(toChild[1]);
        return error;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // dup2 clears close-on-exec on the child's stdin and stdout only.
    posix_spawn_file_actions_adddup2(&actions, toChild[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO);
    // Nothing else crosses: descriptors other threads opened without O_CLOEXEC (sockets, staging files) stay here.
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    int result = posix_spawn(pid, path, &actions, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    close(toChild[0]);
    close(fromChild[1]);
    if (result != 0) {
        close(toChild[1]);
        close(fromChild[0]);
        return result;
    }
    *input = toChild[1];
    *output = fromChild[0];
    return 0;
}

int docpreview_spawn_merged(const char *path, char *const argv[], char *const envp[], pid_t *pid, int *output) {
    int fromChild[2];
    if (pipe2(fromChild, O_CLOEXEC) != 0) return errno;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDERR_FILENO);
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    int result = posix_spawn(pid, path, &actions, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    close(fromChild[1]);
    if (result != 0) {
        close(fromChild[0]);
        return result;
    }
    *output = fromChild[0];
    return 0;
}

/// `docpreview fetch-exec PORT -- PROGRAM ARGS…`, how a fetch child starts its tool (yt-dlp): before
/// main (so nothing of Swift's runtime, which would read /proc/self, runs under the confinement), it
/// makes the process die with the thread that started it, confines its TCP to PORT
/// (``docpreview_restrict_connect``) and becomes PROGRAM, keeping the file confinement it inherited.
__attribute__((constructor)) static void docpreview_fetch_exec(int argc, char **argv, char **envp) {
    if (argc < 5 || strcmp(argv[1], "fetch-exec") != 0 || strcmp(argv[3], "--") != 0) return;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) _exit(126);
    int result = docpreview_restrict_connect(atoi(argv[2]));
    if (result != 0 && result != EOPNOTSUPP && result != ENOSYS) {
        dprintf(STDERR_FILENO, "ERROR: could not confine the tool's network (%s)\n", strerror(result));
        _exit(126);
    }
    execve(argv[4], argv + 4, envp);
    dprintf(STDERR_FILENO, "ERROR: could not start %s (%s)\n", argv[4], strerror(errno));
    _exit(127);
}

struct object_list { char *buffer; size_t size, used; };

static int list_object(struct dl_phdr_info *info, size_t info_size, void *context) {
    (void)info_size;
    struct object_list *list = context;
    size_t length = info->dlpi_name ? strlen(info->dlpi_name) : 0;
    if (length == 0) return 0;
    if (list->used + length + 1 < list->size) {
        memcpy(list->buffer + list->used, info->dlpi_name, length);
        list->buffer[list->used + length] = '\n';
    }
    list->used += length + 1;
    return 0;
}

size_t docpreview_loaded_objects(char *buffer, size_t size) {
    struct object_list list = { buffer, size, 0 };
    dl_iterate_phdr(list_object, &list);
    if (list.used < size) buffer[list.used] = '\0';
    return list.used;
}
