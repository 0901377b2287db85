import Foundation
import GRDB

/// A statement written once for both backends: its text, its values (always sent as bound
/// parameters) and the database's clock, rendered for one ``SQLDialect`` when it runs.
///
/// Interpolated values are bound; table and column names of our own go in with `raw:`.
public struct PortableSQL: Sendable, ExpressibleByStringInterpolation {
    enum Part: Sendable {
        case text(String)
        case value(SQLValue)
        /// The database's time now.
        case now
        /// The database's time, this many seconds from now.
        case later(TimeInterval)
    }

    var parts: [Part]
    /// Whether a caller's list went in (``list(_:)``, ``anyOf(_:)``), so that its text changes with
    /// the list's length; every other text is one of a fixed set of our own, worth preparing once.
    private(set) var holdsList = false

    public init(stringLiteral text: String) {
        parts = [.text(text)]
    }

    public init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
        holdsList = stringInterpolation.holdsList
    }

    /// The database's time now: the transaction's start on PostgreSQL (the server's clock, which
    /// every host shares), the moment it runs on SQLite.
    package static let now = PortableSQL(parts: [.now])

    /// The database's time `seconds` from now.
    package static func later(_ seconds: TimeInterval) -> PortableSQL {
        PortableSQL(parts: [.later(seconds)])
    }

    private init(parts: [Part], holdsList: Bool = false) {
        self.parts = parts
        self.holdsList = holdsList
    }

    /// `fragments` joined by `separator` (a keyword of ours, such as `AND`).
    package static func joined(_ fragments: [PortableSQL], separator: String) -> PortableSQL {
        var parts: [Part] = []
        for (position, fragment) in fragments.enumerated() {
            if position > 0 { parts.append(.text(separator)) }
            parts += fragment.parts
        }
        return PortableSQL(parts: parts, holdsList: fragments.contains(where: \.holdsList))
    }

    /// `values` bound one by one and separated by commas, for `IN (…)`.
    package static func list<Value: SQLBindable>(_ values: some Sequence<Value>) -> PortableSQL {
        var list = joined(values.map { value -> PortableSQL in "\(value)" }, separator: ", ")
        list.holdsList = true
        return list
    }

    /// `conditions` joined by `OR`, one for each item of a caller's list.
    package static func anyOf(_ conditions: [PortableSQL]) -> PortableSQL {
        var alternatives = joined(conditions, separator: " OR ")
        alternatives.holdsList = true
        return alternatives
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []
        var holdsList = false

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            parts.append(.text(literal))
        }

        /// A value, bound as a parameter.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            parts.append(.value(value.sqlValue))
        }

        /// A value or NULL, bound as a parameter.
        public mutating func appendInterpolation(_ value: (some SQLBindable)?) {
            parts.append(.value(value?.sqlValue ?? .null))
        }

        /// Another statement's fragment, its values kept.
        public mutating func appendInterpolation(_ fragment: PortableSQL) {
            parts += fragment.parts
            holdsList = holdsList || fragment.holdsList
        }

        /// A name of ours (a table, a column, an alias), never a caller's text.
        public mutating func appendInterpolation(raw name: String) {
            parts.append(.text(name))
        }
    }

    /// The text and values to send to a database of `dialect`, `now` standing for its clock where
    /// it has none of its own (SQLite).
    package func rendered(in dialect: SQLDialect, now: Date = Date()) -> (text: String, values: [SQLValue]) {
        var text = ""
        var values: [SQLValue] = []
        func bind(_ value: SQLValue) {
            values.append(value)
            text += dialect.placeholder(values.count)
        }
        for part in parts {
            switch part {
            case let .text(literal): text += literal
            case let .value(value): bind(value)
            case .now:
                switch dialect {
                case .sqlite: bind(.date(now))
                case .postgres: text += "now()"
                }
            case let .later(seconds):
                switch dialect {
                case .sqlite: bind(.date(now.addingTimeInterval(seconds)))
                case .postgres:
                    text += "(now() + make_interval(secs => "
                    bind(.real(seconds))
                    text += "))"
                }
            }
        }
        return (text, values)
    }
}

/// A value sent to the database as a bound parameter.
public enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case real(Double)
    case date(Date)
    case bool(Bool)
    case null

    /// The value as GRDB binds it (a date as GRDB stores dates, so comparisons with stored ones hold).
    package var databaseValue: DatabaseValue {
        switch self {
        case let .text(text): text.databaseValue
        case let .integer(integer): integer.databaseValue
        case let .real(real): real.databaseValue
        case let .date(date): date.databaseValue
        case let .bool(bool): bool.databaseValue
        case .null: .null
        }
    }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

/// A Swift value that goes into a statement as a bound parameter.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Double: SQLBindable {
    public var sqlValue: SQLValue { .real(self) }
}

extension Date: SQLBindable {
    public var sqlValue: SQLValue { .date(self) }
}

extension Bool: SQLBindable {
    public var sqlValue: SQLValue { .bool(self) }
}

extension RawRepresentable where RawValue == String {
    /// A status or kind, bound by its name.
    public var sqlValue: SQLValue { .text(rawValue) }
}
