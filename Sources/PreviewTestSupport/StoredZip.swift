/// A ZIP archive with stored (uncompressed) entries, for building hostile office documents in
/// tests: OOXML and OpenDocument packages are ZIPs, and LibreOffice reads stored entries as any other.
package enum StoredZip {
    /// The archive holding `entries` in order, with a central directory and an end record.
    package static func archive(_ entries: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        for (name, bytes) in entries {
            let nameBytes = Array(name.utf8)
            let crc = crc32(bytes)
            let offset = out.count
            // Local header: signature, version 2.0, no flags, stored, no time, CRC, sizes, name.
            out +=
                le32(0x0403_4B50) + le16(20) + le16(0) + le16(0) + le32(0) + le32(crc)
                + le32(UInt32(bytes.count)) + le32(UInt32(bytes.count)) + le16(UInt16(nameBytes.count)) + le16(0) + nameBytes + bytes
            directory +=
                le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(0) + le32(0) + le32(crc)
                + le32(UInt32(bytes.count)) + le32(UInt32(bytes.count)) + le16(UInt16(nameBytes.count)) + le16(0) + le16(0)
                + le16(0) + le16(0) + le32(0) + le32(UInt32(offset)) + nameBytes
        }
        let directoryOffset = out.count
        out += directory
        out +=
            le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
            + le32(UInt32(directory.count)) + le32(UInt32(directoryOffset)) + le16(0)
        return out
    }

    /// The same, from text entries.
    package static func archive(_ entries: [(name: String, text: String)]) -> [UInt8] {
        archive(entries.map { (name: $0.name, bytes: Array($0.text.utf8)) })
    }

    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    private static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
