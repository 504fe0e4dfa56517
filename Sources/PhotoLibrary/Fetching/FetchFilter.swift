import Foundation
import GRDB

/// A fetch's filter: a predicate in the text format (close to NSPredicate's) or built with the typed API.
/// Validated against the keys of the type fetched, when the fetch runs.
public struct FetchFilter: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    let text: String

    /// A predicate in the text format, e.g. `mediaType == image AND creationDate >= "2024-01-01" AND NOT isHidden`.
    public init(format: String) { text = format }
    public init(stringLiteral value: String) { text = value }
    public var description: String { text }

    func sql(for objectType: ObjectType, alias: SQL = "asset") throws(PhotoLibraryError) -> SQL {
        throw .invalidPredicate(message: "predicates are being wired in", position: nil)
    }
}

/// One key of a fetch's order.
public struct FetchSort: Sendable, Hashable {
    public let key: String
    public let ascending: Bool

    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Parses `key,-key,…`: a leading `-` sorts descending. An empty text is no sort.
    ///
    /// - Throws: ``PhotoLibraryError/invalidPredicate(message:position:)`` naming the position of a bad key.
    public static func parseList(_ text: String) throws(PhotoLibraryError) -> [FetchSort] {
        var result: [FetchSort] = []
        var offset = 0
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            defer { offset += part.count + 1 }
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                if text.isEmpty { break }
                throw .invalidPredicate(message: "empty sort key at position \(offset)", position: offset)
            }
            let descending = trimmed.hasPrefix("-")
            let key = descending ? String(trimmed.dropFirst()) : trimmed
            result.append(FetchSort(key: key, ascending: !descending))
        }
        return result
    }

    static func orderSQL(_ sorts: [FetchSort], for objectType: ObjectType, alias: SQL = "asset") throws(PhotoLibraryError) -> SQL {
        throw .invalidPredicate(message: "sort descriptors are being wired in", position: nil)
    }
}
