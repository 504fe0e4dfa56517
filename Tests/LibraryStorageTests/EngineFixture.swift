import Synchronization
import Foundation
import GRDB
import LibraryStorage
import PostgresStore
import PostgresTestSupport
import Testing

/// The engines the contract runs on.
enum EngineKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }
}

/// One database and the engines open on it: `engine`, and more on the same database (``openAnother()``),
/// standing for other processes.
final class EngineFixture: Sendable {
    let kind: EngineKind
    let engine: any StorageEngine
    private let open: @Sendable () async throws -> any StorageEngine
    private let directory: URL?

    private init(kind: EngineKind, directory: URL?, open: @escaping @Sendable () async throws -> any StorageEngine) async throws {
        self.kind = kind
        self.directory = directory
        self.open = open
        self.engine = try await open()
    }

    /// A fixture on a new database: a SQLite file in a temporary directory, or a new database of the test
    /// cluster (the cluster not starting fails the test).
    static func make(_ kind: EngineKind) async throws -> EngineFixture {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("library.sqlite").path
            return try await EngineFixture(kind: kind, directory: directory) {
                var configuration = Configuration()
                configuration.busyMode = .timeout(30)
                return SQLiteEngine(pool: try DatabasePool(path: path, configuration: configuration))
            }
        case .postgres:
            let url = try PostgresCluster.shared().makeDatabase(prefix: "storage")
            return try await EngineFixture(kind: kind, directory: nil) { try await PostgresEngine.open(url: url) }
        }
    }

    /// Runs `body` on a fixture on a new database, then closes its engines and removes its files.
    static func with(_ kind: EngineKind, _ body: (EngineFixture) async throws -> Void) async throws {
        let fixture = try await make(kind)
        do {
            try await body(fixture)
            await fixture.close(fixture.engine)
            fixture.removeFiles()
        } catch {
            await fixture.close(fixture.engine)
            fixture.removeFiles()
            throw error
        }
    }

    /// Another engine on the same database, as another process would open it.
    func openAnother() async throws -> any StorageEngine { try await open() }

    /// Closes an engine of this fixture (a SQLite pool closes when released).
    func close(_ engine: any StorageEngine) async {
        if let engine = engine as? PostgresEngine { await engine.close() }
    }

    private func removeFiles() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The SQL type of a blob column.
    var blobType: String { kind == .postgres ? "BYTEA" : "BLOB" }

    /// The SQL of an auto-incremented primary key.
    var serialKey: String { kind == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT" }

    /// Creates the table `item` the tests use.
    func createItems() throws {
        try engine.writeWithoutTransaction { db throws in
            try db.execute(
                sql: """
                    CREATE TABLE item (id INTEGER PRIMARY KEY, small SMALLINT, whole BIGINT, real DOUBLE PRECISION,
                                       name TEXT, bytes \(blobType))
                    """)
        }
    }

    /// How many rows `item` has, read in a new read transaction.
    func itemCount(_ engine: (any StorageEngine)? = nil) throws -> Int64 {
        try (engine ?? self.engine).read { db in try db.fetchValue(Int64.self, sql: "SELECT count(*) FROM item") ?? -1 }
    }
}

/// Runs `body` on `count` threads of their own (not the cooperative pool: the engines block), and waits for
/// them all; the first error any of them threw is rethrown.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) async throws {
    let failures = Failures()
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            do { try body(index) } catch { failures.record(error) }
            group.leave()
        }
        thread.start()
    }
    await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
    if let first = failures.first { throw first }
}

/// Errors recorded by several threads.
final class Failures: Sendable {
    private let errors = Mutex<[any Error]>([])

    func record(_ error: any Error) { errors.withLock { $0.append(error) } }

    var first: (any Error)? { errors.withLock { $0.first } }
}

/// An error a test body throws on purpose.
struct Deliberate: Error {}
