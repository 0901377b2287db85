internal import CNativeLoader
internal import CVips
import Foundation
import Synchronization

/// Process-wide libvips set-up, done once on first use and never torn down per object.
package enum Vips {
    private static let started = Atomic<Bool>(false)

    private static let initialized: Bool = {
        guard docpreview_vips_init("docpreview") == 0 else { return false }
        started.store(true, ordering: .releasing)
        // libvips's warnings (g_log domain "VIPS") are dropped instead of printed to stderr; errors
        // still reach callers through VipsError. Here, not at process start: glib loads with libvips.
        lazy_g_log_set_handler()("VIPS", GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue), { _, _, _, _ in }, nil)
        // One level of parallelism, across documents: keep libvips's own threads low, and cache
        // no operations — every request names a different file.
        lazy_vips_concurrency_set()(1)
        lazy_vips_cache_set_max()(0)
        lazy_vips_cache_set_max_mem()(0)
        lazy_vips_cache_set_max_files()(0)
        blockUnusedLoaders()
        return true
    }()

    /// Blocks every libvips loader but ``VipsLoad``'s: a file that slips past detection still
    /// cannot reach a parser we never meant to expose (ImageMagick's coders beyond BMP and ICO,
    /// OpenSlide, FITS, Matlab, PDF, CSV, raw). Run again after modules register more loaders.
    private static func blockUnusedLoaders() {
        lazy_vips_operation_block_set()("VipsForeignLoad", 1)
        for load in VipsLoad.all { lazy_vips_operation_block_set()(load.loader, 0) }
    }

    /// `vips_init` loads every module of its module folder (HEIF/AVIF, JPEG XL, ImageMagick, OpenSlide,
    /// PDF): about 20 ms and 60 shared libraries per process, which JPEG, PNG, WebP, GIF, TIFF, JPEG 2000
    /// and SVG never use. This points `VIPSHOME` (unless the user set it) at a prefix without modules,
    /// so `vips_init` skips them; they are loaded when libvips finds no loader for a file. Call first
    /// thing in `main`, before any other thread exists: it changes the environment.
    package static func deferModules() {
        // The marker says VIPSHOME is ours, not the user's: renderer children inherit both.
        let marker = "DOCPREVIEW_VIPS_MODULES_DEFERRED"
        if getenv(marker) == nil {
            guard getenv("VIPSHOME") == nil else { return }
            setenv("VIPSHOME", "/nonexistent", 1)
            setenv(marker, "1", 1)
        }
        modulesDeferred.store(true, ordering: .releasing)
    }

    private static let modulesDeferred = Atomic<Bool>(false)

    /// Loads the modules ``deferModules()`` kept `vips_init` from loading, from the folder beside the
    /// library itself, once. True when this made more loaders available.
    static func loadDeferredModules() -> Bool {
        modulesDeferred.load(ordering: .acquiring) && deferredModulesLoaded
    }

    private static let deferredModulesLoaded: Bool = {
        guard let library = docpreview_native_library_path(DOCPREVIEW_VIPS) else { return false }
        defer { free(library) }
        let folder = URL(fileURLWithPath: String(cString: library)).deletingLastPathComponent()
            .appendingPathComponent("vips-modules-\(VIPS_MAJOR_VERSION).\(VIPS_MINOR_VERSION)")
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let loaded = modules.filter { $0.hasSuffix(".so") }.sorted().filter {
            docpreview_vips_load_module(folder.appendingPathComponent($0).path) == 0
        }
        blockUnusedLoaders()
        return !loaded.isEmpty
    }()

    /// Starts libvips if it is not running. Throws when the library cannot start (ABI mismatch).
    package static func start() throws(VipsError) {
        guard initialized else { throw VipsError(function: "VIPS_INIT") }
    }

    /// The libvips version, e.g. `8.14.1`.
    package static var version: String { String(cString: lazy_vips_version_string()()!) }  // static, never NULL

    /// Shuts libvips down at process exit. With `VIPS_LEAK=1` in the environment, libvips then
    /// reports every object still alive on stderr. Call once, from the executable, never per object.
    package static func shutdown() {
        if started.load(ordering: .acquiring) { lazy_vips_shutdown()() }
    }
}
