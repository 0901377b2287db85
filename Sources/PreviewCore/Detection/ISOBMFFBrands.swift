/// Classifies ISO base media files (MP4, QuickTime, 3GP, HEIF, AVIF) by their `ftyp` brands.
enum ISOBMFFBrands {
    private static let stillImageBrands: Set<String> = ["mif1", "heic", "heix", "heim", "heis", "miaf", "MiHE", "MiHB", "avif", "avio"]
    private static let imageSequenceBrands: Set<String> = ["msf1", "hevc", "hevx", "hevm", "hevs", "avis"]

    static func kind(ofFtypIn head: [UInt8]) -> FileKind {
        guard let boxSize = head.u32be(0), let major = head.fourCC(8) else { return .mp4 }
        let end = min(Int(boxSize), head.count, 4096)
        var compatible: [String] = []
        var offset = 16
        while offset + 4 <= end, let brand = head.fourCC(offset) {
            compatible.append(brand)
            offset += 4
        }
        let brands = Set(compatible + [major])

        if imageSequenceBrands.contains(major) { return .heifSequence }
        if stillImageBrands.contains(major) {
            return brands.contains("avif") || brands.contains("avio") ? .avif : .heic
        }
        switch major {
        case "qt  ": return .mov
        case "M4A ", "M4B ", "M4P ", "F4A ", "F4B ": return .m4a
        case "f4v ", "f4p ": return .f4v
        default:
            if major.hasPrefix("3gp") || major.hasPrefix("3g2") || major.hasPrefix("3ge") || major.hasPrefix("3gg") {
                return .threeGP
            }
            return .mp4
        }
    }
}
