import Crypto
import Foundation
import NIOSSL
import PreviewCore
import SwiftASN1
import X509

/// TLS of the server's own (`serve --tls-cert --tls-key`): HTTP/1.1 and, when the client offers it
/// by ALPN, HTTP/2.
package enum ServerTLS {
    /// The server configuration of a PEM certificate chain and its PEM private key.
    package static func configuration(certificate: String, key: String) throws(PreviewError) -> TLSConfiguration {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            guard !chain.isEmpty else { throw PreviewError(.badRequest, "\(certificate) holds no certificate.") }
            return TLSConfiguration.makeServerConfiguration(
                certificateChain: chain,
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        } catch let error as PreviewError {
            throw error
        } catch {
            throw PreviewError(.badRequest, "Cannot use the TLS certificate \(certificate) with the key \(key): \(error)")
        }
    }
}

/// A self-signed certificate for a private server (`docpreview tls-init`): a P-256 key, the names
/// and addresses clients reach it by, and the pin a mobile client checks instead of a CA.
package struct SelfSignedCertificate: Sendable {
    package let certificatePEM: String
    package let privateKeyPEM: String
    /// Base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo (HPKP's and curl's
    /// `--pinnedpubkey sha256//…` pin); it stays with the key, so a renewed certificate keeps it.
    package let pin: String

    /// A certificate for `names` (host names or IP addresses), valid for `days` from `now`.
    package init(names: [String], days: Int = 825, now: Date = Date()) throws {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(names.first ?? "docpreview") }
        let alternatives = names.map { name -> GeneralName in
            if let address = Self.addressBytes(name) { return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address))) }
            return .dnsName(name)
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(alternatives)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(Double(days) * 86_400), issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(key))
        certificatePEM = try certificate.serializeAsPEM().pemString
        privateKeyPEM = key.pemRepresentation
        pin = Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()
    }

    /// The bytes of an IPv4 or IPv6 address, or nil for a host name.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
