import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewPipeline
@testable import PreviewDocuments
@testable import PreviewServer
@testable import PreviewWeb
import PreviewTestSupport
import Testing

/// A share's password: checked, throttled, and no more tries for guesses sent at once.
extension SharesTests {
    /// A password is asked for; wrong ones are 401, and the 6th within the window 429; the right one opens.
    @Test func passwordsAreCheckedAndThrottled() async throws {
        // A window no load can outlast: each attempt costs a PBKDF2 of 600,000 rounds.
        let harness = try await Harness(token: Self.token, passwordWindow: .seconds(3600))
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await Self.upload(client, harness, "image.webp")
            let made = try await Self.share(client, id, #"{"label": "Recruiter", "password": "blue-harbour-42"}"#)
            let url = try #require(made["url"] as? String)
            #expect(made["password"] as? Bool == true)
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            try await client.execute(uri: url, method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body).contains("type=\"password\""))
                #expect(!String(buffer: response.body).contains("/v1/documents/"))
            }
            try await client.execute(uri: url, method: .post, headers: form, body: ByteBuffer(string: "password=blue-harbour-42")) { response in
                #expect(response.status == .ok && String(buffer: response.body).contains("/v1/documents/\(id)/preview?"))
            }
            for attempt in 1...5 {
                try await client.execute(uri: url, method: .post, headers: form, body: ByteBuffer(string: "password=guess-\(attempt)")) {
                    #expect($0.status == .unauthorized)
                }
            }
            try await client.execute(uri: url, method: .post, headers: form, body: ByteBuffer(string: "password=blue-harbour-42")) { response in
                #expect(response.status == .tooManyRequests && response.headers[.retryAfter] != nil)
            }
            #expect(try await Self.shares(client, id).first?["opened_count"] as? Int == 1)
        }
    }

    /// Concurrent guesses get no more tries than sequential ones: each is counted before its hash.
    /// The page's form posts with `Origin: null` (it sends no referrer) and is not refused for it;
    /// `HEAD` answers as `GET` does, and is not counted as an opening.
    @Test func concurrentGuessesGetNoMoreTriesAndTheFormPosts() async throws {
        let harness = try await Harness(token: Self.token, passwordWindow: .seconds(3600))
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await Self.upload(client, harness, "image.webp")
            let url = try #require(try await Self.share(client, id, #"{"label": "Coach", "password": "blue-harbour-42"}"#)["url"] as? String)
            try await client.execute(uri: url, method: .head) { #expect($0.status == .ok && $0.body.readableBytes == 0) }
            let browserForm: HTTPFields = [
                .contentType: "application/x-www-form-urlencoded", HTTPField.Name("Origin")!: "null",
                HTTPField.Name("Sec-Fetch-Site")!: "same-origin"
            ]
            try await client.execute(uri: url, method: .post, headers: browserForm, body: ByteBuffer(string: "password=blue-harbour-42")) {
                #expect($0.status == .ok && String(buffer: $0.body).contains("/v1/documents/\(id)/preview?"))
            }
            #expect(try await Self.shares(client, id).first?["opened_count"] as? Int == 1, "the HEAD was not an opening")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for attempt in 0..<20 {
                    group.addTask {
                        try await client.execute(uri: url, method: .post, headers: browserForm, body: ByteBuffer(string: "password=guess-\(attempt)"))
                        {
                            $0.status
                        }
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count <= SignInThrottle.perAddress, "\(statuses)")
            #expect(statuses.allSatisfy { [.unauthorized, .tooManyRequests].contains($0) }, "\(statuses)")
        }
        // The shares' throttles have no overall counter: guesses at many shares lock none of the others.
        let throttle = SignInThrottle(overall: nil, clock: ManualClock())
        for index in 0..<SignInThrottle.overall { #expect(throttle.attempt(from: "share-\(index % 25)") == nil) }
        #expect(throttle.refusal(for: "another-share") == nil)
    }
}
