import Foundation
import PreviewCore
import Testing

/// Which links are taken and how they are normalised; which addresses a fetch may reach.
@Suite struct DownloadLinkTests {
    let settings = DownloadSettings(domains: ["media.example.org", "127.0.0.1"])

    @Test func socialLinksGoToTheExtractorNormalised() throws {
        let link = try DownloadLink("  HTTPS://WWW.TikTok.com:443/@ana/video/7?is_from_webapp=1&sender_device=pc&lang=en#top ", settings: settings)
        #expect(link.route == .extractor)
        #expect(link.normalized == "https://tiktok.com/@ana/video/7?lang=en")
        #expect(try DownloadLink("https://vm.tiktok.com/ZMabc/", settings: settings).route == .extractor)
        #expect(
            try DownloadLink("https://www.instagram.com/reel/Cx1/?igsh=abc&utm_source=ig_web", settings: settings).normalized
                == "https://instagram.com/reel/Cx1/")
        #expect(try DownloadLink("http://instagr.am/p/1", settings: settings).route == .extractor)
    }

    @Test func configuredHostsAreFetchedDirectly() throws {
        #expect(try DownloadLink("https://cdn.media.example.org/clip.mp4", settings: settings).route == .direct)
        #expect(try DownloadLink("http://127.0.0.1:8080/clip.mp4", settings: settings).normalized == "http://127.0.0.1:8080/clip.mp4")
    }

    @Test func otherLinksAreRefusedWithAReason() {
        let cases: [(String, PreviewError.Code)] = [
            ("", .badRequest), ("not a link", .badRequest), ("ftp://tiktok.com/x", .badRequest), ("file:///etc/passwd", .badRequest),
            ("https://user:secret@tiktok.com/x", .badRequest), ("https://" + String(repeating: "a", count: 2100) + ".com", .badRequest),
            ("https://tiktok.com.evil.example/x", .unsupportedSite), ("https://eviltiktok.com/x", .unsupportedSite),
            ("http://2130706433/x", .unsupportedSite), ("http://169.254.169.254/latest", .unsupportedSite)
        ]
        for (text, code) in cases {
            #expect(throws: PreviewError.self, "\(text.prefix(60))") { _ = try DownloadLink(text, settings: settings) }
            do { _ = try DownloadLink(text, settings: settings) } catch { #expect(error.code == code, "\(text.prefix(60))") }
        }
    }

    /// The address rules as a pure function over bare addresses: nothing here is connected to.
    /// Each row: an address as a link or a DNS answer may spell it, and the range it must be refused
    /// as (nil: public). Decimal, octal and hexadecimal hosts are read as the proxy's resolver reads
    /// them (`getaddrinfo` with numeric hosts only: no lookup leaves the machine).
    @Test func onlyPublicAddressesAreReachable() throws {
        let table: [(host: String, range: String?)] = [
            ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"), ("0.0.0.0", "this network"),
            ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("172.31.255.255", "private"), ("192.168.1.1", "private"),
            ("100.64.0.1", "CGNAT"), ("100.127.255.255", "CGNAT"),
            ("169.254.169.254", "cloud metadata"), ("169.254.1.1", "link-local"),
            ("224.0.0.1", "multicast"), ("255.255.255.255", "reserved"), ("192.0.2.1", "documentation"),
            ("::1", "loopback"), ("::", "unspecified"), ("fe80::1", "link-local"), ("fc00::1", "unique local"),
            ("fd00:ec2::254", "cloud metadata"), ("ff02::1", "multicast"), ("2001:db8::1", "documentation"),
            // IPv4 inside IPv6: mapped, compatible, NAT64, 6to4.
            ("::ffff:127.0.0.1", "loopback"), ("::ffff:169.254.169.254", "cloud metadata"), ("::127.0.0.1", "loopback"),
            ("64:ff9b::a9fe:a9fe", "cloud metadata"), ("64:ff9b::10.0.0.1", "private"), ("2002:7f00:1::", "loopback"),
            ("2002:a9fe:a9fe::", "cloud metadata"), ("2002:6440:1::", "CGNAT"),
            // One number, octal and hexadecimal spellings of IPv4 addresses.
            ("2130706433", "loopback"), ("0177.0.0.1", "loopback"), ("0x7f.1", "loopback"), ("127.1", "loopback"),
            ("2852039166", "cloud metadata"), ("0251.0376.0251.0376", "cloud metadata"), ("0xa9fea9fe", "cloud metadata"),
            ("012.0.0.1", "private"), ("0300.0250.1.1", "private"), ("1681915905", "CGNAT"),
            // Public.
            ("93.184.216.34", nil), ("8.8.8.8", nil), ("172.32.0.1", nil), ("100.128.0.1", nil), ("2606:4700::1111", nil),
            ("::ffff:8.8.8.8", nil), ("64:ff9b::808:808", nil), ("2002:808:808::", nil), ("134744072", nil)
        ]
        let policy = FetchAddressPolicy()
        for (host, range) in table {
            let address = try #require(Self.numericAddress(host), "\(host) reads as an address")
            let refusal = policy.refusal(address, port: 80)
            if let range {
                #expect(refusal?.contains(range) == true, "\(host) must be refused as \(range): \(refusal ?? "allowed")")
            } else {
                #expect(refusal == nil, "\(host) is public: \(refusal ?? "")")
            }
        }
    }

    /// `host` as `getaddrinfo` reads a numeric host (what the fetch proxy connects to), or nil.
    static func numericAddress(_ host: String) -> NetworkAddress? {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        let info = first.pointee
        if info.ai_family == AF_INET {
            var ipv4 = info.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            return withUnsafeBytes(of: &ipv4) { NetworkAddress(bytes: Array($0)) }
        }
        var ipv6 = info.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
        return withUnsafeBytes(of: &ipv6) { NetworkAddress(bytes: Array($0)) }
    }

    @Test func anExceptionNamesAnAddressAndPort() throws {
        let policy = FetchAddressPolicy(exceptions: [try #require(FetchAddressPolicy.Exception("127.0.0.1:8080"))])
        #expect(policy.refusal(try #require(NetworkAddress("127.0.0.1")), port: 8080) == nil)
        #expect(policy.refusal(try #require(NetworkAddress("127.0.0.1")), port: 8081) != nil, "another port of the same address")
        #expect(policy.refusal(try #require(NetworkAddress("::ffff:127.0.0.1")), port: 8080) != nil, "the mapped form is another address")
        #expect(FetchAddressPolicy.Exception("[::1]:80")?.description == "[::1]:80")
        #expect(FetchAddressPolicy.Exception("10.0.0.5")?.port == nil)
        for bad in ["localhost:80", "127.0.0.1:0", "127.0.0.1:70000", "example.org"] { #expect(FetchAddressPolicy.Exception(bad) == nil, "\(bad)") }
    }
}
