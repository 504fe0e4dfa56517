// Libraries on PostgreSQL for the storage benchmarks: copies of the SQLite fixtures, and empty ones.
import Foundation
import GRDB
import LibraryFixtures
@_spi(Benchmarks) public import PhotoLibrary

/// PostgreSQL libraries for the benchmarks, in the server's cluster (``PostgresServer``).
public enum PostgresLibraries {
    /// The options every benchmark library opens with: the fixtures' retention (ten years, 10,000,000
    /// transactions), so that nothing built expires.
    public static var options: PhotoLibrary.Options {
        PhotoLibrary.Options(retention: RetentionPolicy(maximumAge: 10 * 365 * 86_400, maximumTransactions: 10_000_000))
    }

    /// A PostgreSQL library holding the rows of the SQLite fixture `sqlite` (a ``Fixtures`` library), copied
    /// once and kept in the cluster as the database `name_s<schema version>`, then opened.
    ///
    /// The copy is checked through the library before it is kept: the same number of assets fetched, the
    /// same journal read (every change from the oldest valid token, and the same current sequence number) as
    /// the SQLite library's. It is the SQLite library as it is when copied: benchmarks that commit into both
    /// make them drift apart alike.
    public static func copy(of sqlite: PhotoLibrary, name: String) throws -> PhotoLibrary {
        let server = try PostgresServer.shared()
        let databaseURL = sqlite.url.appending(path: PhotoLibrary.databaseFileName)
        let source = try DatabaseQueue(path: databaseURL.path, configuration: readOnly)
        let version = try source.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
        let database = "\(name)_s\(version)"
        let directory = Fixtures.root.appending(path: "postgres-libraries/\(database)")
        if try !isComplete(database, on: server) {
            try server.dropDatabase(database)
            try server.psql("CREATE DATABASE \(database)")
            _ = try PhotoLibrary(postgres: server.url(database: database), directory: directory, options: options)  // Its schema.
            let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appending(path: "photosync-copy-\(UUID().uuidString)")
            try TableCopy(source: source, server: server, database: database, scratch: scratch).run()
            let copy = try PhotoLibrary(postgres: server.url(database: database), directory: directory, options: options)
            try LibraryComparison(sqlite: sqlite, postgres: copy).check()
            try server.psql("COMMENT ON DATABASE \(database) IS '\(completeMark)'")
        }
        return try PhotoLibrary(postgres: server.url(database: database), directory: directory, options: options)
    }

    /// A new, empty PostgreSQL library in a database of its own; open more handles on it with `open()`,
    /// and drop it with `drop()`.
    public static func makeEmpty(prefix: String) throws -> EmptyLibrary {
        let server = try PostgresServer.shared()
        let database = "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try server.psql("CREATE DATABASE \(database)")
        return EmptyLibrary(
            server: server, database: database,
            directory: URL(fileURLWithPath: NSTemporaryDirectory()).appending(path: "photosync-\(database)"))
    }

    static let completeMark = "photosync benchmark fixture, complete"

    private static func isComplete(_ database: String, on server: PostgresServer) throws -> Bool {
        let comment = try server.psql(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '\(database)'")
        return comment.trimmingCharacters(in: .whitespacesAndNewlines) == completeMark
    }

    private static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }
}

/// A PostgreSQL library made for one benchmark (``PostgresLibraries/makeEmpty(prefix:)``).
public struct EmptyLibrary: Sendable {
    let server: PostgresServer
    /// The database's name.
    public let database: String
    /// The library's directory (originals).
    public let directory: URL

    /// Opens a handle on the library (each handle has connections of its own, as another process's would).
    public func open() throws -> PhotoLibrary {
        try PhotoLibrary(postgres: server.url(database: database), directory: directory, options: PostgresLibraries.options)
    }

    /// Drops the database (closing the connections handles still hold) and removes the directory.
    public func drop() {
        try? server.dropDatabase(database)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Checks, through the library's API, that a PostgreSQL copy is the same library as its SQLite original.
struct LibraryComparison {
    let sqlite: PhotoLibrary
    let postgres: PhotoLibrary

    func check() throws {
        let counts = try [sqlite, postgres].map { try $0.fetchAssets().count }
        let heads = try [sqlite, postgres].map { try $0.currentChangeToken.sequence }
        let journals = try [sqlite, postgres].map(journalRead)
        guard counts[0] == counts[1], heads[0] == heads[1], journals[0] == journals[1], counts[0] > 0 else {
            throw LibraryComparisonError(
                "the PostgreSQL copy differs: assets \(counts), head sequence \(heads), journal read (changes, inserted, updated, deleted) \(journals)")
        }
    }

    /// Every change from the oldest valid token: how many transactions, asset identifiers inserted, updated,
    /// deleted, and a digest of the inserted identifiers (a sum of their hashes: in any order).
    private func journalRead(_ library: PhotoLibrary) throws -> [Int] {
        var totals = [0, 0, 0, 0, 0]
        var digest = 0
        for change in try library.fetchPersistentChanges(since: library.historyStatus().oldestValidToken) {
            let details = try change.changeDetails(for: .asset)
            totals[0] += 1
            totals[1] += details.insertedLocalIdentifiers.count
            totals[2] += details.updatedLocalIdentifiers.count
            totals[3] += details.deletedLocalIdentifiers.count
            for identifier in details.insertedLocalIdentifiers { digest &+= FNV.hash(identifier) }
        }
        totals[4] = digest
        return totals
    }
}

/// FNV-1a over a text's bytes: the same hash in every process (Swift's `Hasher` is seeded per process).
enum FNV {
    static func hash(_ text: String) -> Int {
        var value = -3_750_763_034_362_895_579  // 0xcbf29ce484222325
        for byte in text.utf8 {
            value ^= Int(byte)
            value = value &* 1_099_511_628_211
        }
        return value
    }
}

struct LibraryComparisonError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
