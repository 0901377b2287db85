import Foundation

/// Where blobs live in an object store: `s3://bucket/prefix?endpoint=…&region=…&style=path|virtual&ca=…`.
///
/// The endpoint defaults to AWS's for the region (`https://s3.REGION.amazonaws.com`, virtual-host
/// addressing); any other endpoint (SeaweedFS, MinIO, Supabase Storage, R2) defaults to path-style
/// addressing. `ca` names a PEM file of certificates to trust for an `https` endpoint besides the
/// system's. Credentials are never part of it (see ``S3Credentials``).
public struct S3Location: Sendable, Equatable {
    package enum Addressing: String, Sendable { case path, virtual }

    package var bucket: String
    /// Prepended to every key; empty or ending in `/`.
    package var prefix: String
    package var endpoint: URL
    package var region: String
    package var addressing: Addressing
    package var trustedCertificates: String?

    package init(_ text: String) throws {
        guard text.hasPrefix("s3://"), let url = URLComponents(string: text), let bucket = url.host, !bucket.isEmpty else {
            throw S3Error.configuration("Not an s3://bucket/prefix address: \(text)")
        }
        let parameters = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let known: Set = ["endpoint", "region", "style", "ca"]
        if let unknown = parameters.keys.first(where: { !known.contains($0) }) {
            throw S3Error.configuration("Unknown s3:// parameter \(unknown) (known: \(known.sorted().joined(separator: ", "))).")
        }
        self.bucket = bucket
        let path = url.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        prefix = path.isEmpty ? "" : path + "/"
        region = parameters["region"].flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1"
        if let endpoint = parameters["endpoint"] {
            guard let parsed = URL(string: endpoint), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw S3Error.configuration("The endpoint must be an http:// or https:// address: \(endpoint)")
            }
            self.endpoint = parsed
        } else {
            endpoint = URL(string: "https://s3.\(region).amazonaws.com")!
        }
        switch parameters["style"] {
        case nil, "": addressing = parameters["endpoint"] == nil ? .virtual : .path
        case let style?:
            guard let chosen = Addressing(rawValue: style) else { throw S3Error.configuration("style is path or virtual, not \(style).") }
            addressing = chosen
        }
        trustedCertificates = parameters["ca"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The `Host` header and the URL of `key` (nil: the bucket itself).
    func address(of key: String?) -> (host: String, path: String, url: String) {
        let scheme = endpoint.scheme ?? "https"
        let port = endpoint.port.map { ":\($0)" } ?? ""
        let base = endpoint.host!
        let objectPath = key.map { "/" + SigV4Signer.encode($0, keepingSlashes: true) } ?? "/"
        switch addressing {
        case .path:
            let path = "/\(SigV4Signer.encode(bucket))" + (key == nil ? "" : objectPath)
            return (base + port, path, "\(scheme)://\(base)\(port)\(path)")
        case .virtual:
            let host = "\(bucket).\(base)"
            return (host + port, objectPath, "\(scheme)://\(host)\(port)\(objectPath)")
        }
    }
}
