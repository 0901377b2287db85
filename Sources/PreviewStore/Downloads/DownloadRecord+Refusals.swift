import PreviewCore

extension DownloadRecord {
    /// The refusal of a client's link while `limit` of its downloads wait.
    package static func tooManyPending(_ limit: Int) -> PreviewError {
        PreviewError(.queueFull, "This device has \(limit) links waiting to download; send more once those are done.")
    }
}

extension DeviceRecord {
    /// The refusal of a second device of one name.
    package static func nameTaken(_ name: String) -> PreviewError {
        PreviewError(.conflict, "A device named \(name) exists already (revoked devices keep their names).")
    }
}
