import CVips
import Synchronization

/// Process-wide libvips set-up, done once on first use and never torn down per object.
public enum Vips {
    private static let started = Atomic<Bool>(false)

    private static let initialized: Bool = {
        guard docpreview_vips_init("docpreview") == 0 else { return false }
        started.store(true, ordering: .releasing)
        // One level of parallelism, across documents: keep libvips's own threads low, and cache
        // no operations — every request names a different file.
        vips_concurrency_set(1)
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        return true
    }()

    /// Starts libvips if it is not running. Throws when the library cannot start (ABI mismatch).
    public static func start() throws(VipsError) {
        guard initialized else { throw VipsError(function: "VIPS_INIT") }
    }

    /// The libvips version, e.g. `8.14.1`.
    public static var version: String { String(cString: vips_version_string()) }

    /// Drops libvips's warnings (g_log domain "VIPS") instead of printing them to stderr; errors
    /// still reach callers through ``VipsError``. Call once at start-up.
    public static func silenceWarnings() {
        g_log_set_handler("VIPS", GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue), { _, _, _, _ in }, nil)
    }

    /// Shuts libvips down at process exit. With `VIPS_LEAK=1` in the environment, libvips then
    /// reports every object still alive on stderr. Call once, from the executable, never per object.
    public static func shutdown() {
        if started.load(ordering: .acquiring) { vips_shutdown() }
    }
}
