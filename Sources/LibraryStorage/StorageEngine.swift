/// A place a library's tables live — a SQLite file or a PostgreSQL database — and the transactions its
/// connections run in.
///
/// The engines give the same guarantees, which the library's semantics rest on:
/// - a read sees one consistent snapshot of committed data from its first statement to its end;
/// - writes are serialised: one write transaction runs at a time across every process using the library,
///   and commits in the order they ran, so change sequence numbers become visible in order;
/// - a write that throws is rolled back whole.
///
/// Methods block their thread until the engine answers (the library's API is synchronous).
public protocol StorageEngine: Sendable {
    /// The SQL the engine's connections speak.
    var dialect: SQLDialect { get }

    /// Runs `body` in a read-only transaction: one snapshot of the committed data.
    ///
    /// - Throws: the engine's error; what `body` throws.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T

    /// Runs `body` in a write transaction, committed when it returns and rolled back when it throws. Other
    /// writers, in this process or any other, wait.
    ///
    /// - Throws: the engine's error (a writer that waited longer than the engine's timeout fails); what
    ///   `body` throws.
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T

    /// Runs `body` on the writer's connection outside any transaction, other writers of this process waiting:
    /// for reads that should see this process's own commits from a warm cache, and begin and end their own
    /// transaction.
    ///
    /// - Throws: the engine's error; what `body` throws.
    func writeWithoutTransaction<T>(_ body: (any SQLConnection) throws -> T) throws -> T

    /// Opens a snapshot: every read through it sees the same committed data, however long it is kept and
    /// whatever is committed meanwhile. It holds a connection until released.
    ///
    /// - Throws: the engine's error.
    func makeSnapshot() throws -> any StorageSnapshot
}

/// A consistent view of a library's committed data, kept open across reads (``StorageEngine/makeSnapshot()``).
public protocol StorageSnapshot: Sendable {
    /// Runs `body` on the snapshot.
    ///
    /// - Throws: the engine's error; what `body` throws.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T
}
