import CVips

/// An image opened lazily by libvips: the header is read, pixels are not decoded until used.
///
/// Owns the `VipsImage` reference and unrefs it in `deinit`. Use from one task at a time.
public final class VipsImageSource {
    let image: UnsafeMutablePointer<VipsImage>

    /// Opens `path` (header only). Throws ``VipsError`` when libvips cannot recognise or parse it.
    public init(path: String) throws(VipsError) {
        try Vips.start()
        guard let image = docpreview_vips_open(path) else { throw VipsError(function: "vips_image_new_from_file") }
        self.image = image
    }

    deinit {
        g_object_unref(image)
    }

    public var width: Int { Int(vips_image_get_width(image)) }
    public var height: Int { Int(vips_image_get_height(image)) }
}
