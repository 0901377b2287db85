#ifndef DOCPREVIEW_NATIVE_LOADER_H
#define DOCPREVIEW_NATIVE_LOADER_H

/// FFmpeg, Poppler and libvips are opened on first use instead of at process start. Linked
/// directly, their ~175 shared libraries cost every `docpreview` run about 45 ms in the dynamic
/// loader, including runs that render nothing or only need one of them.
///
/// The address of `symbol` in `library` (a soname such as "libvips.so.42"), opening the library
/// on first use. A missing library or symbol is a broken installation: it is reported on stderr
/// and the process exits with 127, as the dynamic loader does for a missing library at start.
void *_Nonnull docpreview_native_symbol(const char *_Nonnull library, const char *_Nonnull symbol);

/// The file `library` was loaded from (opening it if needed), or NULL; the caller frees it.
char *_Nullable docpreview_native_library_path(const char *_Nonnull library);

/// Declares `lazy_NAME()`, which returns a pointer to the C function NAME (of the prototype the
/// library's header declares), looked up in LIBRARY once and cached.
#define DOCPREVIEW_LAZY(LIBRARY, NAME)                                                            \
    static inline __typeof__(&NAME) _Nonnull lazy_##NAME(void) {                                   \
        static __typeof__(&NAME) cached;                                                           \
        __typeof__(&NAME) function = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);                   \
        if (!function) {                                                                           \
            function = (__typeof__(&NAME))docpreview_native_symbol(LIBRARY, #NAME);                \
            __atomic_store_n(&cached, function, __ATOMIC_RELEASE);                                 \
        }                                                                                          \
        return function;                                                                           \
    }

#endif
