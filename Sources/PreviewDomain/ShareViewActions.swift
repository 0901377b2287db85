import Foundation

/// What a view did besides reading and watching: opened a page or picture zoomed, took the download.
public struct ShareViewActions: Codable, Sendable, Equatable {
    package var zooms = 0
    package var downloads = 0

    package init(zooms: Int = 0, downloads: Int = 0) {
        (self.zooms, self.downloads) = (zooms, downloads)
    }

    /// `self` and `other` together.
    package static func + (one: Self, other: Self) -> Self {
        Self(zooms: one.zooms &+ other.zooms, downloads: one.downloads &+ other.downloads)
    }

    /// `self` less `other` (a view's growth since it was kept before).
    package static func - (one: Self, other: Self) -> Self {
        Self(zooms: one.zooms - other.zooms, downloads: one.downloads - other.downloads)
    }
}
