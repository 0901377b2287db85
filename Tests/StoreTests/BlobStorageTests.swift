import Crypto
import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewPostgres
@testable import PreviewS3
import PreviewTestSupport
import Synchronization
import Testing

/// The examples AWS publishes for Signature Version 4 with S3 ("Signature Calculations for the
/// Authorization Header"): their key, their requests of 24 May 2013, the signatures AWS computed.
@Suite(.blocking) struct SigV4SignerTests {
    static let signer = SigV4Signer(
        credentials: S3Credentials(
            accessKey: "AKIAIOSFODNN7EXAMPLE",
            secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), region: "us-east-1")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)

    static func headers(_ extra: [String: String] = [:], payload: String = SigV4Signer.emptyPayloadHash) -> [String: String] {
        ["host": "examplebucket.s3.amazonaws.com", "x-amz-date": "20130524T000000Z", "x-amz-content-sha256": payload].merging(extra) { $1 }
    }

    @Test func getObjectWithARange() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/test.txt", headers: Self.headers(["range": "bytes=0-9"]),
            payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(Self.signer.signature(for: request, at: Self.date) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(
            Self.signer.authorization(for: request, at: Self.date) == """
                AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, \
                SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, \
                Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41
                """)
    }

    @Test func putObjectUnderAKeyThatNeedsEncoding() {
        let body = SHA256.hash(data: Data("Welcome to Amazon S3.".utf8)).hex
        #expect(body == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let path = SigV4Signer.encode("/test$file.text", keepingSlashes: true)
        #expect(path == "/test%24file.text")
        let request = SigV4Signer.Request(
            method: "PUT", path: path,
            headers: Self.headers(
                ["date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"], payload: body), payloadHash: body)
        #expect(Self.signer.signature(for: request, at: Self.date) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func bucketQueriesAreSortedAndEncoded() {
        let lifecycle = SigV4Signer.Request(
            method: "GET", path: "/", query: [("lifecycle", "")], headers: Self.headers(),
            payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(Self.signer.signature(for: lifecycle, at: Self.date) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        // Given out of order: the canonical query sorts them.
        let list = SigV4Signer.Request(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: Self.headers(),
            payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(Self.signer.signature(for: list, at: Self.date) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func signingAddsTheDateAndPayloadHeaders() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/test.txt", headers: ["host": "examplebucket.s3.amazonaws.com", "range": "bytes=0-9"],
            payloadHash: SigV4Signer.emptyPayloadHash)
        let added = Self.signer.signedHeaders(for: request, at: Self.date)
        #expect(added["x-amz-date"] == "20130524T000000Z")
        #expect(added["x-amz-content-sha256"] == SigV4Signer.emptyPayloadHash)
        #expect(added["authorization"]?.hasSuffix("Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41") == true)
        #expect(SigV4Signer.timestamp(Date(timeIntervalSince1970: 1_709_251_199)) == "20240229T235959Z", "a leap day")
    }

    @Test func addressesAndCredentials() throws {
        let aws = try S3Location("s3://media/docpreview")
        #expect(aws.endpoint.absoluteString == "https://s3.us-east-1.amazonaws.com" && aws.addressing == .virtual && aws.prefix == "docpreview/")
        #expect(aws.address(of: "docpreview/a b").url == "https://media.s3.us-east-1.amazonaws.com/docpreview/a%20b")
        let seaweed = try S3Location("s3://media/?endpoint=http://127.0.0.1:18333&region=eu-west-1")
        #expect(seaweed.addressing == .path && seaweed.prefix == "" && seaweed.region == "eu-west-1")
        #expect(seaweed.address(of: "k").url == "http://127.0.0.1:18333/media/k" && seaweed.address(of: "k").host == "127.0.0.1:18333")
        #expect(throws: S3Error.self) { try S3Location("s3://media/?secret=x") }
        #expect(throws: S3Error.self) { try S3Location("https://media/") }

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.file(
            "credentials",
            Array("[default]\naws_access_key_id = A\naws_secret_access_key = B\n[other]\naws_access_key_id = C\naws_secret_access_key = D\n".utf8))
        #expect(
            try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "other"])
                == S3Credentials(accessKey: "C", secretKey: "D"))
        #expect(
            try S3Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "E", "AWS_SECRET_ACCESS_KEY": "F", "AWS_SHARED_CREDENTIALS_FILE": file.path])
                == S3Credentials(accessKey: "E", secretKey: "F"))
        #expect(throws: S3Error.self) {
            try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": folder.url.appendingPathComponent("none").path])
        }
        #expect(XMLText.unescape("&#34;abc&#34; &amp; &#x27;") == "\"abc\" & '")
    }
}
