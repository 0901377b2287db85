internal import CVips

/// The libvips loader a file must be read with, and how. libvips picks a loader by sniffing, and
/// some of its loaders read far more than images (ImageMagick's coders, OpenSlide, FITS, Matlab,
/// PDF, CSV): a file is opened only when the loader libvips would pick is the one expected here.
package struct VipsLoad: Sendable, Hashable {
    /// The loader's class name, as `vips_foreign_find_load` names it.
    package var loader: String
    /// Read from a stream of the file's bytes instead of its path: the loader then has no folder
    /// to resolve relative references in, so librsvg loads no image an SVG links to.
    package var fromStream: Bool

    package init(loader: String, fromStream: Bool) {
        self.loader = loader
        self.fromStream = fromStream
    }

    package static let jpeg = VipsLoad(loader: "VipsForeignLoadJpegFile", fromStream: false)
    package static let png = VipsLoad(loader: "VipsForeignLoadPngFile", fromStream: false)
    package static let gif = VipsLoad(loader: "VipsForeignLoadNsgifFile", fromStream: false)
    package static let webp = VipsLoad(loader: "VipsForeignLoadWebpFile", fromStream: false)
    package static let tiff = VipsLoad(loader: "VipsForeignLoadTiffFile", fromStream: false)
    package static let heif = VipsLoad(loader: "VipsForeignLoadHeifFile", fromStream: false)
    package static let jpegXL = VipsLoad(loader: "VipsForeignLoadJxlFile", fromStream: false)
    package static let jpeg2000 = VipsLoad(loader: "VipsForeignLoadJp2kFile", fromStream: false)
    /// ImageMagick: for the formats libvips 8.14 has no loader of its own for (BMP, ICO).
    package static let magick = VipsLoad(loader: "VipsForeignLoadMagickFile", fromStream: false)
    package static let svg = VipsLoad(loader: "VipsForeignLoadSvgSource", fromStream: true)

    /// Every loader above; libvips refuses to run any other (``Vips``).
    static let all: [VipsLoad] = [.jpeg, .png, .gif, .webp, .tiff, .heif, .jpegXL, .jpeg2000, .magick, .svg]

    /// Throws unless `found` (what `vips_foreign_find_load*` returned) is this loader.
    func expect(_ found: UnsafePointer<CChar>?) throws(VipsError) {
        guard let found else { throw VipsError(function: "vips_foreign_find_load") }
        let name = String(cString: found)
        guard name == loader else {
            throw VipsError(function: "vips_foreign_find_load", message: "libvips would read this file with \(name), not \(loader)")
        }
    }
}
