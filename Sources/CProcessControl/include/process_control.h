#ifndef DOCPREVIEW_PROCESS_CONTROL_H
#define DOCPREVIEW_PROCESS_CONTROL_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated), its stdin and stdout connected to new
/// pipes; stderr is shared. The parent's ends are close-on-exec, so a child started at the same time by another
/// thread never holds them (it would keep a pipe open after this child died). Returns 0 and sets
/// `pid`, `input` (write end, the child's stdin) and `output` (read end, its stdout), or an errno.
int docpreview_spawn_piped(const char *path, char *const argv[], char *const envp[], pid_t *pid, int *input, int *output);

#endif
