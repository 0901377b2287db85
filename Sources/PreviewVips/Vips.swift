import CVips

/// Process-wide libvips set-up, done once on first use and never torn down per object.
public enum Vips {
    private static let initialized: Bool = docpreview_vips_init("docpreview") == 0

    /// Starts libvips if it is not running. Throws when the library cannot start (ABI mismatch).
    public static func start() throws(VipsError) {
        guard initialized else { throw VipsError(function: "VIPS_INIT") }
    }

    /// The libvips version, e.g. `8.14.1`.
    public static var version: String { String(cString: vips_version_string()) }
}
