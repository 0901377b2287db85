/// What a paged document's text job read: how many pages, which could not be read, and whether
/// pages were left out. Stored as the text derivative's blob; the pages themselves are rows of the
/// index (``PageText``s, one per page).
package struct DocumentText: Codable, Sendable, Equatable {
    /// Pages read, from page 1.
    package var pageCount: Int
    /// Pages whose text could not be read (out of their budget, damaged); they have no words.
    package var unreadPages: [Int]
    /// Pages past those read were left out: past ``maxPages`` or ``maxWords``, or past the document's time.
    package var truncated: Bool

    /// The most pages a document's text covers.
    package static let maxPages = 5_000
    /// The words past which no more pages are read (a few hundred dense pages; the index keeps
    /// about 70 bytes a word).
    package static let maxWords = 1_000_000

    /// The words a document of `size` bytes may put in the index: one a byte of the original, at
    /// least ``minimumWords`` and at most ``maxWords``. Real text takes two or more compressed
    /// bytes a word; a small file that draws the same text on page after page (7 KB made 61 MB of
    /// index) stops here.
    package static func wordBudget(forBytes size: Int) -> Int { min(maxWords, max(minimumWords, size)) }
    package static let minimumWords = 50_000

    package init(pageCount: Int, unreadPages: [Int] = [], truncated: Bool = false) {
        self.pageCount = pageCount
        self.unreadPages = unreadPages
        self.truncated = truncated
    }

    enum CodingKeys: String, CodingKey {
        case pageCount = "page_count", unreadPages = "unread_pages", truncated
    }
}
