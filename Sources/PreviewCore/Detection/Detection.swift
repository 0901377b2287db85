/// What detection learned from a file's bytes.
package struct Detection: Sendable, Equatable {
    package var kind: FileKind
    /// The container says its content needs a password (encrypted OLE2 or ZIP entries).
    package var encrypted: Bool = false
    /// Why the container's own structure is broken, when it is (e.g. a ZIP without its end record).
    package var damage: String?
    /// Bytes after the container's end marker, where polyglots hide a second file.
    package var trailing: TrailingData?
    /// For ZIP containers (OOXML, OpenDocument): what the central directory says they unpack to.
    package var unpacked: UnpackedSize?

    package init(kind: FileKind, encrypted: Bool = false, damage: String? = nil, trailing: TrailingData? = nil) {
        self.kind = kind
        self.encrypted = encrypted
        self.damage = damage
        self.trailing = trailing
    }
}

/// Bytes found after a container's end marker (JPEG EOI, PNG IEND, PDF `%%EOF`, ZIP end record, RIFF size).
package struct TrailingData: Sendable, Equatable {
    /// Where the extra bytes start.
    package var offset: Int
    package var length: Int
    /// What those bytes look like on their own (`unknown` when nothing recognisable).
    package var payload: FileKind
}

/// A ZIP's totals from its central directory: what unpacking would cost, before anything is unpacked.
package struct UnpackedSize: Sendable, Equatable {
    package var entries: Int
    /// Compressed bytes of all entries.
    package var packedBytes: Int
    /// Bytes of all entries once unpacked; nil when an entry's size is not in the central directory (ZIP64).
    package var unpackedBytes: Int?
}
