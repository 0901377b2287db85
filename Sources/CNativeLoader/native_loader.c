#define _GNU_SOURCE  // dlinfo
#include "native_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *docpreview_native_symbol(const char *library, const char *symbol) {
    // dlopen counts references and returns the same handle for a library already open, so
    // there is nothing to cache here; the caller caches the symbol.
    void *handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
    void *address = handle ? dlsym(handle, symbol) : NULL;
    if (!address) {
        const char *reason = dlerror();
        fprintf(stderr, "docpreview: cannot load %s from %s: %s (run scripts/install-deps)\n", symbol, library,
                reason ? reason : "not found");
        _exit(127);
    }
    return address;
}

char *docpreview_native_library_path(const char *library) {
    void *handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
    struct link_map *map = NULL;
    if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) return NULL;
    return strdup(map->l_name);
}
