import Foundation
import GRDB
import LibraryStorage

/// The library's whole state — every identifier and the token of that instant — read in batches from one
/// consistent snapshot: ``PhotoLibrary/fetchCurrentState()`` for a library too large to hold in memory at
/// once (a server streaming it to a client).
///
/// The snapshot holds a database connection, and keeps SQLite from recycling the write-ahead log past it,
/// until the reader is released: read it to the end promptly.
public final class LibraryStateReader: Sendable {
    /// The token of the snapshot's instant: continue with the changes since it.
    public let changeToken: ChangeToken
    /// How many objects of each type the snapshot holds (what the batches will yield).
    public let counts: [ObjectType: Int]

    private let library: PhotoLibrary
    private let snapshot: any StorageSnapshot

    init(library: PhotoLibrary) throws(PhotoLibraryError) {
        self.library = library
        do {
            snapshot = try library.storage.makeSnapshot()
            (changeToken, counts) = try snapshot.read { db in
                var counts: [ObjectType: Int] = [:]
                for type in ObjectType.allCases {
                    counts[type] = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM \(type.tableName)") ?? 0
                }
                return (try library.journal.currentToken(db), counts)
            }
        } catch {
            throw PhotoLibrary.map(error, path: library.databasePath)
        }
    }

    /// Where a reading stopped: the type being read and the last internal id returned.
    public struct Position: Sendable, Hashable {
        var type: ObjectType = .asset
        var lastID: Int64 = 0

        /// The start of the state.
        public init() {}
    }

    /// The next identifiers of the snapshot after `position`, at most `limit`, in type order (assets,
    /// asset collections, collection lists) then in the order objects were added; empty at the end.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the snapshot can't be read.
    /// - Complexity: O(`limit`) per call.
    public func nextBatch(after position: inout Position, limit: Int = 10_000) throws(PhotoLibraryError) -> [(ObjectType, String)] {
        do {
            return try snapshot.read { db in
                var batch: [(ObjectType, String)] = []
                while batch.count < limit {
                    try db.forEachRow(
                        sql: "SELECT id, localIdentifier FROM \(position.type.tableName) WHERE id > ? ORDER BY id LIMIT ?",
                        arguments: [position.lastID, limit - batch.count], cached: true
                    ) { columns in
                        batch.append((position.type, columns.text(1)))
                        position.lastID = columns.int64(0)
                        return true
                    }
                    if batch.count >= limit { break }
                    guard let next = ObjectType(rawValue: position.type.rawValue + 1) else { break }
                    position = Position(type: next, lastID: 0)
                }
                return batch
            }
        } catch {
            throw PhotoLibrary.map(error, path: library.databasePath)
        }
    }
}

extension LibraryStateReader.Position {
    init(type: ObjectType, lastID: Int64) {
        self.type = type
        self.lastID = lastID
    }
}

extension PhotoLibrary {
    /// Starts reading the whole current state from one snapshot, in batches (see ``LibraryStateReader``).
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read.
    public func makeStateReader() throws(PhotoLibraryError) -> LibraryStateReader {
        try LibraryStateReader(library: self)
    }
}
