import Foundation
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewDocuments
import PreviewStore
import PreviewTestSupport
import Testing

/// The download queue and the device tokens on both backends: one download per client and link,
/// keyset history, which processes are dead. (Leasing, retries and reclaiming: LeaseContractTests.)
@Suite struct DownloadQueueTests {
    static let settings = DownloadSettings(domains: ["media.example.org"])
    static let client = "6f1c2c4e-3d2b-4a6e-9b1f-0a1b2c3d4e5f"

    static func record(_ url: String, client: String = client) throws -> DownloadRecord {
        DownloadRecord(
            id: DownloadRecord.newID(), clientID: client, device: nil, owner: "ana", url: url,
            link: try DownloadLink(url, settings: settings), clientTimestamp: "2026-11-24T10:00:00Z")
    }

    func withQueue(_ backend: TestBackend, _ body: (any LinkDownloads) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try await body(try backend.open(root: folder.url).downloads)
    }

    @Test(arguments: TestBackend.available) func theSameLinkFromTheSameClientIsOneDownload(backend: TestBackend) async throws {
        try await withQueue(backend) { queue in
            let first = try await queue.submit(try Self.record("https://www.tiktok.com/@ana/video/1?utm_source=copy"), maxPending: 10)
            let again = try await queue.submit(try Self.record("https://tiktok.com/@ana/video/1#t=3"), maxPending: 10)
            let otherClient = try await queue.submit(
                try Self.record("https://tiktok.com/@ana/video/1", client: "0e4a7a36-6a39-4c55-9a68-58f8a0c9a1b2"),
                maxPending: 10)
            #expect(first.created && !again.created && otherClient.created)
            #expect(again.download.id == first.download.id)
            #expect(otherClient.download.id != first.download.id, "another device's link is its own download")
            #expect(try await queue.download(id: first.download.id)?.normalizedURL == "https://tiktok.com/@ana/video/1")
        }
    }

    @Test(arguments: TestBackend.available) func aClientHasABoundedNumberWaiting(backend: TestBackend) async throws {
        try await withQueue(backend) { queue in
            for n in 0..<3 { _ = try await queue.submit(try Self.record("https://media.example.org/\(n).mp4"), maxPending: 3) }
            await #expect(throws: PreviewError.self) { _ = try await queue.submit(try Self.record("https://media.example.org/9.mp4"), maxPending: 3) }
            // A link it sent before is still answered.
            #expect(try await !queue.submit(try Self.record("https://media.example.org/0.mp4"), maxPending: 3).created)
        }
    }

    /// A finished download names the document it became, and the document its sources.
    @Test(arguments: TestBackend.available) func aFinishedDownloadNamesItsDocument(backend: TestBackend) async throws {
        try await withQueue(backend) { queue in
            _ = try await queue.submit(try Self.record("https://media.example.org/a.mp4"), maxPending: 10)
            let leased = try await #require(try queue.leaseDownload(worker: "w1", leaseSeconds: 60))
            #expect(try await queue.finish(leased, documentID: "doc"))
            let done = try await #require(try queue.download(id: leased.id))
            #expect(done.status == .done && done.documentID == "doc" && done.leaseOwner == nil)
            #expect(try await queue.downloads(documentID: "doc").map(\.id) == [leased.id])
            #expect(try await queue.downloadCounts()[.done] == 1)
        }
    }

    /// A worker process of this host is dead once it has gone, and also while it waits to be
    /// reaped (a `kill -9`'d `serve` whose parent has not waited for it yet).
    @Test(.blocking) func aKilledProcessNotYetReapedIsDead() throws {
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for argument in arguments { free(argument) } }
        #expect(posix_spawn(&pid, "/bin/true", nil, nil, arguments, environ) == 0)
        let owner = "\(LeaseOwners.host)/\(pid)/x"
        try waitUntil("the child to exit") { LeaseOwners.isZombie(pid) }
        #expect(LeaseOwners.isDeadLocalWorker(owner), "exited, not yet reaped")
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(LeaseOwners.isDeadLocalWorker(owner), "gone")
        #expect(!LeaseOwners.isDeadLocalWorker("\(LeaseOwners.host)/\(getppid())/x"), "a running process is alive")
    }

    @Test(arguments: TestBackend.available) func historyPagesStayStableWhileLinksArrive(backend: TestBackend) async throws {
        try await withQueue(backend) { queue in
            var sent: [String] = []
            for n in 0..<5 { await sent.append(try queue.submit(try Self.record("https://media.example.org/\(n).mp4"), maxPending: 100).download.id) }
            let first = try await queue.downloads(clientID: Self.client, device: nil, before: nil, limit: 2)
            #expect(first.map(\.id) == [sent[4], sent[3]])
            for n in 5..<8 { _ = try await queue.submit(try Self.record("https://media.example.org/\(n).mp4"), maxPending: 100) }
            let second = try await queue.downloads(clientID: Self.client, device: nil, before: first.last?.seq, limit: 2)
            let third = try await queue.downloads(clientID: Self.client, device: nil, before: second.last?.seq, limit: 2)
            #expect(second.map(\.id) == [sent[2], sent[1]] && third.map(\.id) == [sent[0]], "new links never move a later page")
        }
    }

    @Test(arguments: TestBackend.available) func devicesAreAddedOnceAndRevokedAtOnce(backend: TestBackend) async throws {
        try await withQueue(backend) { queue in
            try await queue.addDevice(DeviceRecord(name: "Ana's iPhone", tokenSha256: "aa", owner: "ana"))
            await #expect(throws: PreviewError.self) {
                try await queue.addDevice(DeviceRecord(name: "Ana's iPhone", tokenSha256: "bb", owner: "ana"))
            }
            #expect(try await queue.device(tokenSha256: "aa")?.owner == "ana")
            #expect(try await queue.revokeDevice(name: "Ana's iPhone"))
            #expect(try await !queue.revokeDevice(name: "Ana's iPhone"))
            #expect(try await queue.device(tokenSha256: "aa") == nil)
            #expect(try await queue.devices().map(\.name) == ["Ana's iPhone"])
        }
    }
}
