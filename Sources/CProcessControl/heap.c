#include "process_control.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

enum { huge_page = 2 << 20 };

/// The blocks that move the heap's start, kept reachable.
static void *spacers[2];

static uintptr_t huge_page_floor(uintptr_t address) { return address & ~(uintptr_t)(huge_page - 1); }

int docpreview_use_huge_page_heap(size_t bytes) {
    if (bytes < huge_page || bytes > INT32_MAX / 2) return EINVAL;
    // Blocks up to `bytes` come from the heap, not from an mmap each, and freed ones stay there to be
    // used again; the next growth of the heap reserves `bytes` more than it needs.
    if (!mallopt(M_MMAP_THRESHOLD, (int)bytes) || !mallopt(M_TRIM_THRESHOLD, (int)bytes * 2) ||
        !mallopt(M_TOP_PAD, (int)bytes)) return EINVAL;
    // This block makes the heap grow now. Growing wrote the header of the rest just past it, and a
    // 2 MiB stretch with a page already in place stays in 4 KiB pages: the advice starts after it.
    char *grown = malloc(huge_page);
    if (!grown) return ENOMEM;
    void *top = sbrk(0);
    uintptr_t start = huge_page_floor((uintptr_t)grown + 2 * huge_page);
    // Where brk could not grow, malloc mapped the heap elsewhere: there is no one range to advise.
    if (top == (void *)-1 || (uintptr_t)grown >= (uintptr_t)top || huge_page_floor((uintptr_t)top) <= start) {
        free(grown);
        return ENOTSUP;
    }
    if (madvise((void *)start, huge_page_floor((uintptr_t)top) - start, MADV_HUGEPAGE) != 0) {
        int error = errno;
        free(grown);
        return error;
    }
    // The heap's next blocks begin where the advice does: this one fills the stretch before it. Both
    // stay allocated; nothing is written in them, so they cost address space, not memory.
    spacers[0] = grown;
    const size_t gap = start - ((uintptr_t)grown + huge_page);
    if (gap > 64) spacers[1] = malloc(gap - 64);
    return gap <= 64 || spacers[1] ? 0 : ENOMEM;
}

int docpreview_map_large_blocks(size_t bytes) {
    return mallopt(M_MMAP_THRESHOLD, (int)bytes) ? 0 : EINVAL;
}

int docpreview_skip_fast_bins(void) {
    return mallopt(M_MXFAST, 0) ? 0 : EINVAL;
}
