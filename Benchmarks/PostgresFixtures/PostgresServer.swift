// The PostgreSQL server the storage benchmarks run against: a cluster of its own, kept between runs.
public import Foundation
import LibraryFixtures
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server for the benchmarks: Debian's `postgresql` binaries, a cluster in
/// `<fixtures>/postgres-<major>/` (kept between runs, so that its fixture databases are built once), listening
/// on a free loopback port. It is started on first use and stopped (`pg_ctl stop -m fast`) when the process
/// that started it ends, however it ends: a watchdog process waits for it.
///
/// Settings: PostgreSQL's defaults — durable commits (`fsync`, `synchronous_commit`), as the SQLite libraries
/// the benchmarks compare with (`synchronous=FULL`) — except `shared_buffers` (1 GB, so that a 1,000,000-asset
/// library is served from the server's cache as SQLite's is from the page cache), `max_wal_size` (4 GB: fewer
/// checkpoints while fixtures are copied in) and `max_connections` (200).
/// Connections: over TCP to 127.0.0.1, trusted (loopback only, no password), as the user `photosync`.
///
/// A server that can't start is an error with its log in it: the benchmarks fail, never skip.
public final class PostgresServer: Sendable {
    /// The superuser the benchmarks connect as.
    public static let user = "photosync"
    /// The loopback port the server listens on.
    public let port: Int
    /// The cluster's directory: `data/`, `socket/`, `server.log`.
    public let directory: URL
    let binaries: URL
    /// Who runs the server's commands: `postgres` when this process is root (`initdb` refuses root).
    let runAs: String?

    /// The server of this process, started on first use.
    ///
    /// - Throws: ``PostgresServerError`` when it can't be started (every later call throws the same).
    public static func shared() throws -> PostgresServer { try started.get() }

    private static let started = Result { try PostgresServer.start() }

    private init(port: Int, directory: URL, binaries: URL, runAs: String?) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.runAs = runAs
    }

    /// The URL of one of the server's databases, as the library opens it.
    public func url(database: String) -> URL {
        URL(string: "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)?sslmode=disable")!
    }

    var data: URL { directory.appending(path: "data") }
    var socketDirectory: URL { directory.appending(path: "socket") }

    /// Runs SQL (or psql's meta-commands) with `psql` over the unix socket, stopping at the first error.
    ///
    /// - Returns: what psql printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let script = directory.appending(path: "script-\(getpid())-\(UUID().uuidString).sql")
        try sql.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        return try Spawn.run(
            [binaries.appending(path: "psql").path, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory.path,
             "-p", String(port), "-U", Self.user, "-d", database, "-f", script.path],
            outputIn: directory)
    }

    /// The names of the server's databases.
    public func databases() throws -> Set<String> {
        Set(try psql("SELECT datname FROM pg_database").split(separator: "\n").map(String.init))
    }

    /// Drops a database, closing the connections still open to it.
    public func dropDatabase(_ name: String) throws {
        try psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    // MARK: Starting

    private static func start() throws -> PostgresServer {
        let binaries = try findBinaries()
        let runAs = getuid() == 0 ? "postgres" : nil
        let directory = Fixtures.root.appending(path: "postgres-\(binaries.deletingLastPathComponent().lastPathComponent)")
        let server = PostgresServer(port: try freePort(), directory: directory, binaries: binaries, runAs: runAs)
        try server.prepare()
        try server.waitForPreviousServer()
        try server.watchForExit()
        try server.startServer()
        return server
    }

    private static func findBinaries() throws -> URL {
        if let configured = ProcessInfo.processInfo.environment["PHOTOSYNC_POSTGRES_BIN"] {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        let root = "/usr/lib/postgresql"
        let newest = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).filter { FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }.max()
        guard let newest else {
            throw PostgresServerError.notInstalled("no \(root)/<version>/bin/initdb: apt-get install -y postgresql")
        }
        return URL(fileURLWithPath: "\(root)/\(newest)/bin", isDirectory: true)
    }

    /// Makes the cluster when it doesn't exist (or was left half made).
    private func prepare() throws {
        guard !FileManager.default.fileExists(atPath: data.appending(path: "PG_VERSION").path) else { return }
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        for path in [directory, socketDirectory] where runAs != nil {
            try FileManager.default.setAttributes([.ownerAccountName: runAs!], ofItemAtPath: path.path)
        }
        try Spawn.run(
            [binaries.appending(path: "initdb").path, "-D", data.path, "-U", Self.user, "-E", "UTF8", "--locale=C",
             "--auth=trust", "--no-sync"],
            as: runAs, outputIn: URL(fileURLWithPath: NSTemporaryDirectory()))
    }

    /// A server another benchmark process started on this cluster stops when that process ends (its
    /// watchdog): wait for it, up to 60 s.
    private func waitForPreviousServer() throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while (try? pgctl(["status"])) != nil {
            guard ContinuousClock.now < deadline else {
                throw PostgresServerError.startFailed(
                    "a server is still running on \(data.path) (another benchmark run?); stop it with "
                        + "`runuser -u postgres -- \(binaries.path)/pg_ctl -D \(data.path) stop`")
            }
            usleep(200_000)
        }
    }

    private func startServer() throws {
        let options = [
            "-p \(port)", "-k \(socketDirectory.path)", "-c listen_addresses=127.0.0.1", "-c shared_buffers=1GB",
            "-c max_wal_size=4GB", "-c max_connections=200",
        ].joined(separator: " ")
        do {
            try pgctl(["-l", directory.appending(path: "server.log").path, "-o", options, "-w", "-t", "120", "start"])
        } catch {
            let log = (try? String(contentsOf: directory.appending(path: "server.log"), encoding: .utf8)) ?? ""
            throw PostgresServerError.startFailed("pg_ctl start on port \(port): \(error)\nserver log (end):\n\(log.suffix(4_000))")
        }
    }

    @discardableResult
    private func pgctl(_ arguments: [String]) throws -> String {
        try Spawn.run([binaries.appending(path: "pg_ctl").path, "-D", data.path] + arguments, as: runAs, outputIn: URL(fileURLWithPath: NSTemporaryDirectory()))
    }

    /// Starts the process that stops the server once this one has ended.
    private func watchForExit() throws {
        let stop = (runAs.map { "/usr/sbin/runuser -u \($0) -- " } ?? "") + "'\(binaries.path)/pg_ctl' -D '\(data.path)' -m fast -w stop"
        try Spawn.start(["/bin/sh", "-c", "tail --pid=\(getpid()) -f /dev/null; \(stop)"])
    }

    /// A TCP port of 127.0.0.1 that was free a moment ago.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PostgresServerError.startFailed("socket(): errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutableBytes(of: &address) { bytes in
            let pointer = bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            return bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
        }
        guard bound else { throw PostgresServerError.startFailed("no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why the benchmarks' PostgreSQL server isn't there.
public enum PostgresServerError: Error, CustomStringConvertible {
    /// Debian's `postgresql` package is missing.
    case notInstalled(String)
    /// The server did not start (the message holds its log).
    case startFailed(String)
    /// `initdb`, `pg_ctl` or `psql` failed.
    case commandFailed(String, output: String)

    public var description: String {
        switch self {
        case .notInstalled(let message): "PostgreSQL is not installed: \(message)"
        case .startFailed(let message): "PostgreSQL did not start: \(message)"
        case .commandFailed(let command, let output): "\(command) failed: \(output)"
        }
    }
}
