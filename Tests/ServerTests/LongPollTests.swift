import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PreviewTestSupport
import ServiceLifecycle
import Testing

/// `GET /v1/documents/{id}?wait=N`: a document still being processed is answered once it changes
/// (its job's end, heard from this process's worker), or when the wait is over (by the service's
/// clock, which the test moves); out-of-range waits are refused.
@Suite struct LongPollTests {
    @Test func aWaitingReadIsAnsweredWhenTheJobEnds() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await upload(client, "image.webp", "owner=ana&title=photo&filename=photo.webp")
            async let waited = client.execute(uri: "/v1/documents/\(id)?wait=30", method: .get) { try json($0) }
            // The read sleeps on the service's clock, which never moves here: only the job's end can answer it.
            try await onOwnThread { try waitUntil("the read to wait") { harness.server.documents.changes.waiting == 1 } }
            try await harness.drainQueue()
            let document = try await waited
            #expect(document["status"] as? String == "done", "\(document)")
            #expect(harness.server.documents.changes.waiting == 0)
        }
    }

    /// Issue 65, item 14: a shutdown answers the reads that wait at once, with the document as it
    /// is, instead of waiting them out past its grace.
    @Test func aShutdownAnswersWaitingReadsAtOnce() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await upload(client, "image.webp", "owner=ana&title=photo&filename=photo.webp")
            async let waited = client.execute(uri: "/v1/documents/\(id)?wait=30", method: .get) { try json($0) }
            try await onOwnThread { try waitUntil("the read to wait") { harness.server.documents.changes.waiting == 1 } }
            let group = ServiceGroup(configuration: .init(services: [harness.server.drainService], logger: Logger(label: "test")))
            async let running: Void = group.run()
            await group.triggerGracefulShutdown()
            // The clock never moves and the job never ends: only the drain can answer the read.
            let document = try await waited
            #expect(document["status"] as? String == "queued", "\(document)")
            try await running
            try await client.execute(uri: "/v1/documents/\(id)?wait=30", method: .get) { response in
                #expect(response.status == .serviceUnavailable, "a new read during the drain is refused")
            }
        }
    }

    @Test func aWaitThatSeesNoChangeEndsOnTime() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await upload(client, "image.webp", "owner=ana&title=photo&filename=photo.webp")
            async let waited = client.execute(uri: "/v1/documents/\(id)?wait=5", method: .get) { try json($0) }
            try await onOwnThread { try waitUntil("the read to wait") { harness.clock.sleeping == 1 } }
            // Past the end of the wait: read again, unchanged, and answered as it is.
            harness.clock.advance(by: .seconds(6))
            let document = try await waited
            #expect(document["status"] as? String == "queued", "\(document)")
        }
    }

    @Test func aSettledDocumentIsAnsweredAtOnceAndWaitsAreBounded() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await upload(client, "image.webp", "owner=ana&title=photo&filename=photo.webp")
            try await harness.drainQueue()
            let settled = try await client.execute(uri: "/v1/documents/\(id)?wait=30", method: .get) { try json($0) }
            #expect(settled["status"] as? String == "done", "answered at once: the clock never moved")
            for wait in ["0", "31", "soon"] {
                try await client.execute(uri: "/v1/documents/\(id)?wait=\(wait)", method: .get) { #expect($0.status == .badRequest, "wait=\(wait)") }
            }
        }
    }
}
