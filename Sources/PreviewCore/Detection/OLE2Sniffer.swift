/// Reads an OLE2 compound file's directory to name the Office document inside, and to recognise
/// password protection: an encrypted OOXML package, a Word FIB with `fEncrypted`, an Excel FILEPASS record.
enum OLE2Sniffer {
    private static let endOfChain: UInt32 = 0xFFFF_FFFE
    private static let maxDirectorySectors = 64

    private struct Entry {
        var name: String
        var startSector: UInt32
        var size: UInt32
    }

    static func detect(_ probe: ByteProbe) -> Detection {
        let head = probe.head
        guard let shift = head.u16le(0x1E), shift == 9 || shift == 12,
            let firstDirectorySector = head.u32le(0x30), let miniCutoff = head.u32le(0x38)
        else {
            return Detection(kind: .ole2, damage: "the compound file header is invalid")
        }
        let sectorSize = 1 << Int(shift)
        let entries = directory(probe, firstSector: firstDirectorySector, sectorSize: sectorSize)
        func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }
        func streamStart(_ entry: Entry, count: Int) -> [UInt8] {
            // Small streams live in the mini stream; only regular-sector streams are read here.
            guard entry.size >= miniCutoff else { return [] }
            return probe.read(at: (Int(entry.startSector) + 1) * sectorSize, count: min(count, sectorSize))
        }

        if entry("EncryptedPackage") != nil || entry("EncryptionInfo") != nil {
            return Detection(kind: .encryptedOffice, encrypted: true)
        }
        if let word = entry("WordDocument") {
            let fib = streamStart(word, count: 12)
            let encrypted = fib.u16le(0) == 0xA5EC && (fib.u16le(0x0A) ?? 0) & 0x0100 != 0
            return Detection(kind: .doc, encrypted: encrypted)
        }
        if let book = entry("Workbook") ?? entry("Book") {
            return Detection(kind: .xls, encrypted: hasFilePass(streamStart(book, count: sectorSize)))
        }
        if entry("PowerPoint Document") != nil { return Detection(kind: .ppt) }
        if entries.isEmpty { return Detection(kind: .ole2, damage: "the compound file directory is unreadable") }
        return Detection(kind: .ole2)
    }

    /// Walks the BIFF records at the start of a Workbook stream looking for FILEPASS (0x002F).
    private static func hasFilePass(_ stream: [UInt8]) -> Bool {
        var offset = 0
        while let type = stream.u16le(offset), let length = stream.u16le(offset + 2) {
            if type == 0x002F { return true }
            if type == 0x000A { return false }  // EOF of the globals substream
            offset += 4 + Int(length)
        }
        return false
    }

    private static func directory(_ probe: ByteProbe, firstSector: UInt32, sectorSize: Int) -> [Entry] {
        var entries: [Entry] = []
        var sector = firstSector
        var visited = Set<UInt32>()
        while sector < endOfChain, visited.count < maxDirectorySectors, visited.insert(sector).inserted {
            let bytes = probe.read(at: (Int(sector) + 1) * sectorSize, count: sectorSize)
            guard bytes.count == sectorSize else { break }
            for start in stride(from: 0, to: sectorSize, by: 128) {
                guard let nameLength = bytes.u16le(start + 0x40), nameLength >= 2, nameLength <= 64,
                    let startSector = bytes.u32le(start + 0x74), let size = bytes.u32le(start + 0x78)
                else { continue }
                let units = (0..<(Int(nameLength) / 2 - 1)).compactMap { bytes.u16le(start + 2 * $0) }
                entries.append(Entry(name: String(decoding: units, as: UTF16.self), startSector: startSector, size: size))
            }
            sector = nextSector(probe, after: sector, sectorSize: sectorSize) ?? endOfChain
        }
        return entries
    }

    /// Follows the FAT: the sector that continues the chain after `sector`.
    private static func nextSector(_ probe: ByteProbe, after sector: UInt32, sectorSize: Int) -> UInt32? {
        let perFATSector = sectorSize / 4
        let fatIndex = Int(sector) / perFATSector
        guard fatIndex < 109, let fatSector = probe.head.u32le(0x4C + 4 * fatIndex), fatSector < endOfChain else { return nil }
        let offset = (Int(fatSector) + 1) * sectorSize + (Int(sector) % perFATSector) * 4
        return probe.read(at: offset, count: 4).u32le(0)
    }
}
