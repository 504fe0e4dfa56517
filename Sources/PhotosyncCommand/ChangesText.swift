import PhotoLibrary
import PhotosyncWire

/// `photosync changes` for people: a header per change, a line per object (kind, type, identifier, path
/// when mirrored, changed properties of updates), then the token to store.
enum ChangesText {
    static func print(_ page: Wire.ChangesPage) {
        for change in page.changes {
            Output.line("\(change.token)  \(change.date)  \(change.author)  (\(summary(change)))")
            for line in objectLines(change, includeCollections: true) { Output.line("  " + line) }
        }
        if page.changes.isEmpty { Output.line("no changes") }
        Output.line("token: \(page.token)\(page.hasMore ? " (more changes follow)" : "")")
    }

    /// `2 assets inserted, 1 collection updated` (collections: albums, smart albums, moments; lists: folders, year lists).
    static func summary(_ change: Wire.Change) -> String {
        var parts: [String] = []
        for (type, noun) in [(ObjectType.asset, "asset"), (.assetCollection, "collection"), (.collectionList, "list")] {
            let objects = change[type]
            for (list, verb) in [(objects.inserted, "inserted"), (objects.updated, "updated"), (objects.deleted, "deleted")] where !list.isEmpty {
                parts.append("\(Plural.count(list.count, noun)) \(verb)")
            }
        }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }

    /// One line per object changed: `updated asset 8A5D…/L0/001  Family/renamed.jpg  (resource)`.
    static func objectLines(_ change: Wire.Change, includeCollections: Bool) -> [String] {
        var rows: [[String]] = []
        let types: [(ObjectType, String)] = includeCollections
            ? [(.asset, "asset"), (.assetCollection, "collection"), (.collectionList, "list")] : [(.asset, "asset")]
        for (type, noun) in types {
            let objects = change[type]
            for (list, verb) in [(objects.inserted, "inserted"), (objects.updated, "updated"), (objects.deleted, "deleted")] {
                for identifier in list {
                    var row = [verb, noun, identifier, objects.paths[identifier].map { $0.isEmpty ? "." : $0 } ?? "-"]
                    if let properties = objects.changedProperties[identifier], !properties.isEmpty {
                        row.append("(" + properties.joined(separator: ", ") + ")")
                    }
                    rows.append(row)
                }
            }
        }
        return Output.table(rows).map { $0.trimmingTrailingSpaces() }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
