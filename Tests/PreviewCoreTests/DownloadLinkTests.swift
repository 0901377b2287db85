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
        #expect(try DownloadLink("https://www.instagram.com/reel/Cx1/?igsh=abc&utm_source=ig_web", settings: settings).normalized
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
            ("http://2130706433/x", .unsupportedSite), ("http://169.254.169.254/latest", .unsupportedSite),
        ]
        for (text, code) in cases {
            #expect(throws: PreviewError.self, "\(text.prefix(60))") { _ = try DownloadLink(text, settings: settings) }
            do { _ = try DownloadLink(text, settings: settings) } catch { #expect(error.code == code, "\(text.prefix(60))") }
        }
    }

    @Test func onlyPublicAddressesAreReachable() throws {
        let policy = FetchAddressPolicy()
        let refused = ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "169.254.169.254", "169.254.1.1", "0.0.0.0",
                       "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1",
                       "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "::127.0.0.1"]
        for text in refused {
            let address = try #require(NetworkAddress(text), "\(text)")
            #expect(policy.refusal(address, port: 80) != nil, "\(text) must be refused")
        }
        for text in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"] {
            #expect(policy.refusal(try #require(NetworkAddress(text)), port: 443) == nil, "\(text) is public")
        }
        #expect(policy.refusal(try #require(NetworkAddress("169.254.169.254")), port: 80)?.contains("cloud metadata") == true)
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
