import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// Links sent from a phone's share sheet (`POST /api/v1/download`), and the devices that send them.
extension DocumentService {
    /// Who sent a link: a device (its token), or the service token (`device` nil).
    package struct LinkSender: Sendable {
        package var device: DeviceRecord?
        package var owner: String

        /// The service token's links belong to `owner` (default ``DocumentService/serviceLinkOwner``).
        package init(device: DeviceRecord?, owner: String? = nil) {
            self.device = device
            self.owner = device?.owner ?? owner ?? DocumentService.serviceLinkOwner
        }
    }

    /// The owner of documents from links sent with the service token.
    package static let serviceLinkOwner = "share-sheet"
    /// The most downloads one client may have waiting at once.
    package static let maxPendingDownloads = 50

    var linkDownloads: any LinkDownloads {
        get throws(PreviewError) {
            guard let downloads else { throw PreviewError(.unavailable, "This server keeps no downloads.") }
            return downloads
        }
    }

    /// Records the link, once per sender (the device, or the service token), client and normalised
    /// link, queued for download: committed before this returns, and announced to this process's
    /// idle fetchers (``arrivals``, shared with the jobs). The same link from the same client again
    /// returns the same download; another device sending the same `client_id` shares nothing with it.
    package func submitDownload(url: String, clientID: String, clientTimestamp: String?, from sender: LinkSender) async throws -> (
        download: DownloadRecord, created: Bool
    ) {
        let client = try Self.client(clientID.trimmingCharacters(in: .whitespaces))
        let link = try DownloadLink(url, settings: pipeline.configuration.downloads)
        try DocumentLabels(owner: sender.owner, title: "link", filename: "link").check()
        let timestamp = clientTimestamp.map { String($0.prefix(64)) }
        let record = DownloadRecord(
            id: DownloadRecord.newID(), clientID: client, device: sender.device?.name,
            owner: sender.owner, url: String(url.prefix(WebLink.maxLength)), link: link, clientTimestamp: timestamp)
        let submitted = try await linkDownloads.submit(record, maxPending: Self.maxPendingDownloads)
        if submitted.download.status == .queued { arrivals?.announce() }
        return submitted
    }

    /// `clientID` in the form the queue keeps (a lowercase UUID); `bad_request` when it is not a UUID.
    static func client(_ clientID: String) throws(PreviewError) -> String {
        guard let client = UUID(uuidString: clientID) else {
            throw PreviewError(.badRequest, "client_id must be the device's UUID.")
        }
        return client.uuidString.lowercased()
    }

    /// Download `id`, if `sender` may see it (a device sees its own only).
    package func download(id: String, for sender: LinkSender) async throws -> DownloadRecord {
        guard let download = try await linkDownloads.download(id: id), sender.device == nil || download.device == sender.device?.name else {
            throw PreviewError(.notFound, "No download \(id).")
        }
        return download
    }

    /// A client's downloads that `sender` may see, newest first: `limit` of them after `cursor`, and
    /// the cursor of the next page (nil on the last).
    package func downloads(clientID: String, after cursor: String?, limit: Int, for sender: LinkSender) async throws -> (
        downloads: [DownloadRecord], next: String?
    ) {
        let client = try Self.client(clientID)
        var before: Int64?
        if let cursor {
            guard let seq = Int64(cursor), seq > 0 else { throw PreviewError(.badRequest, "cursor is not one this server gave.") }
            before = seq
        }
        let page = try await linkDownloads.downloads(clientID: client, device: sender.device?.name, before: before, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        return (shown, page.count > limit ? shown.last.flatMap { $0.seq.map(String.init) } : nil)
    }

    /// The downloads that became document `id`: where it came from.
    package func sources(ofDocument id: String) async throws -> [DownloadRecord] {
        guard let downloads else { return [] }
        return try await downloads.downloads(documentID: id)
    }

    // MARK: Devices

    /// Adds a device and returns its token, shown this once (only its SHA-256 is kept).
    package func addDevice(name: String, owner: String?) async throws -> (device: DeviceRecord, token: String) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 100, trimmed.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
            throw PreviewError(.badRequest, "A device name is 1 to 100 characters, none of them control characters.")
        }
        let token = Self.deviceTokenPrefix + Base64URL.randomToken(bytes: 32)
        let device = DeviceRecord(name: trimmed, tokenSha256: Self.tokenHash(token), owner: owner ?? trimmed)
        try await linkDownloads.addDevice(device)
        return (device, token)
    }

    /// The live device `token` belongs to, or nil.
    package func device(token: String) async throws -> DeviceRecord? {
        guard Self.mayBeDeviceToken(token), let downloads else { return nil }
        return try await downloads.device(tokenSha256: Self.tokenHash(token))
    }

    static let deviceTokenPrefix = "dpd_"

    /// Whether `token` has a device token's form (its prefix, a bounded length): only such are looked up.
    package static func mayBeDeviceToken(_ token: String) -> Bool {
        token.hasPrefix(deviceTokenPrefix) && token.count < 100
    }

    package func devices() async throws -> [DeviceRecord] { try await linkDownloads.devices() }

    package func revokeDevice(name: String) async throws -> Bool { try await linkDownloads.revokeDevice(name: name) }

    // MARK: Storing what was fetched

    /// Stores a fetched file as a `highlight_video` of the download's owner, like an upload: its
    /// type from its bytes (a page or a picture is `no_video_stream`), validated, published and
    /// indexed with its preview job. The same bytes under the same title are the same document.
    func storeFetched(_ file: URL, title: String, for download: DownloadRecord) async throws -> Document {
        let kind = try await offload.run(.writes) { ContentDetector.detect(try ByteProbe(contentsOf: file)).kind }
        guard kind.category == .video else {
            throw PreviewError(.noVideoStream, "The link gave \(kind.label.lowercased()), not a video.")
        }
        let blobs = store.blobs
        let writer = try await offload.run(.writes) { try blobs.stage(fileAt: file) }
        let cleanTitle = String(title.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.prefix(200))
            .trimmingCharacters(in: .whitespaces)
        let labels = DocumentLabels(
            owner: download.owner, type: rules.type(id: "highlight_video"), title: cleanTitle.isEmpty ? "Video" : cleanTitle,
            filename: "video.\(kind.extensions.first ?? kind.rawValue)")
        return try await accept(writer, labels: labels).document
    }
}
