public import Foundation

/// A private PostgreSQL server for the tests of one process: `initdb` into a temporary directory, then
/// `pg_ctl start` on a free loopback port, with its unix socket in the same directory.
///
/// ```swift
/// let cluster = try PostgresCluster.shared()
/// let url = try cluster.makeDatabase()   // a fresh, empty database: postgres://…/test_…
/// ```
///
/// The server starts once per test process, on first use, and stops when the process exits — also when
/// it crashes or is killed: a watchdog process (`tail --pid`) stops the server and removes the directory
/// once the test process is gone. A server that can't start is an error with the server's log in it,
/// never a skipped test.
///
/// The binaries come from Debian's `postgresql` package (`/usr/lib/postgresql/<version>/bin`, the newest
/// version), or from the directory in `PHOTOSYNC_POSTGRES_BIN`. `initdb` refuses to run as root, so as root
/// the server runs as the `postgres` user the package creates (through `runuser`).
///
/// Connections over TCP need the password (``password``; SCRAM), connections over the unix socket are
/// trusted: tests of authentication failures use TCP.
public final class PostgresCluster: Sendable {
    /// The superuser's name.
    public let user = "photosync"
    /// The superuser's password, for TCP connections.
    public let password = "photosync-test-password"
    /// The loopback port the server listens on.
    public let port: Int
    /// The directory that holds the data directory, the socket and the log.
    public let directory: URL
    let binaries: URL
    let runAs: String?

    /// The server of this test process, started on first use.
    ///
    /// - Throws: ``PostgresClusterError`` when the server can't be started; every later call throws the
    ///   same error (the tests fail, loudly, rather than skip).
    public static func shared() throws(PostgresClusterError) -> PostgresCluster {
        try sharedResult.get()
    }

    private static let sharedResult: Result<PostgresCluster, PostgresClusterError> = Result {
        () throws(PostgresClusterError) -> PostgresCluster in try PostgresCluster.start()
    }

    private init(port: Int, directory: URL, binaries: URL, runAs: String?) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.runAs = runAs
    }

    /// The directory of the server's unix socket (`host=` in libpq terms).
    public var socketDirectory: URL { directory.appendingPathComponent("socket", isDirectory: true) }

    /// The URL of a database of this server, over TCP with the password.
    public func url(database: String, user: String? = nil, password: String? = nil) -> URL {
        let user = user ?? self.user
        let password = password ?? self.password
        return URL(string: "postgres://\(user):\(password)@127.0.0.1:\(port)/\(database)?sslmode=disable")!
    }

    /// Creates a new, empty database with a unique name and returns its URL (over TCP, with the password).
    ///
    /// - Parameter settings: configuration the server applies to every session of the database
    ///   (`ALTER DATABASE … SET name = 'value'`), e.g. `["log_statement": "all"]` to have its statements in
    ///   ``statementLog``.
    /// - Throws: ``PostgresClusterError/commandFailed(_:output:)`` when `CREATE DATABASE` fails.
    public func makeDatabase(prefix: String = "test", settings: [String: String] = [:]) throws(PostgresClusterError) -> URL {
        let name = "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try runSQL("CREATE DATABASE \(name)")
        for (setting, value) in settings.sorted(by: { $0.key < $1.key }) {
            try runSQL("ALTER DATABASE \(name) SET \(setting) = '\(value.replacingOccurrences(of: "'", with: "''"))'")
        }
        return url(database: name)
    }

    /// The server's log as JSON lines (PostgreSQL's `jsonlog`: one object per entry, with `dbname`, `pid` and
    /// `message`), written by its logging collector — so entries of concurrent sessions never interleave.
    public var statementLog: URL { directory.appendingPathComponent("data/log/server.json") }

    /// Runs SQL as the superuser over the unix socket with `psql`, in the `postgres` database.
    ///
    /// - Returns: What `psql` printed (unaligned, tuples only).
    /// - Throws: ``PostgresClusterError/commandFailed(_:output:)`` when `psql` fails.
    @discardableResult
    public func runSQL(_ sql: String, database: String = "postgres") throws(PostgresClusterError) -> String {
        try Self.run(
            binaries.appendingPathComponent("psql").path,
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory.path, "-p", String(port), "-U", user,
             "-d", database, "-c", sql],
            as: nil, in: directory)
    }

    // MARK: Starting

    private static func start() throws(PostgresClusterError) -> PostgresCluster {
        let binaries = try findBinaries()
        let runAs = getuid() == 0 ? "postgres" : nil
        let directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("photosync-postgres-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try prepare(directory, runAs: runAs)
        // The watchdog first: whatever happens from here on, the server stops and the directory goes when
        // this process ends.
        try watchForExit(binaries, directory, runAs: runAs)
        try initdb(binaries, directory, runAs: runAs)
        var lastError: PostgresClusterError?
        // A free port can be taken by another process between probing and binding: try a few.
        for _ in 0..<5 {
            let port = try freePort()
            let cluster = PostgresCluster(port: port, directory: directory, binaries: binaries, runAs: runAs)
            do {
                try cluster.startServer()
                return cluster
            } catch {
                lastError = error
            }
        }
        throw lastError ?? .startFailed("no attempt was made")
    }

    private static func findBinaries() throws(PostgresClusterError) -> URL {
        if let configured = ProcessInfo.processInfo.environment["PHOTOSYNC_POSTGRES_BIN"] {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init)
            .filter { FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }
            .sorted()
        guard let newest = versions.last else {
            throw .binariesNotFound(
                "no \(root)/<version>/bin/initdb: install Debian's postgresql package (scripts/install-system-packages)")
        }
        return URL(fileURLWithPath: "\(root)/\(newest)/bin", isDirectory: true)
    }

    /// Creates the directory (and the socket directory), owned by the user the server runs as.
    private static func prepare(_ directory: URL, runAs: String?) throws(PostgresClusterError) {
        do {
            let socket = directory.appendingPathComponent("socket", isDirectory: true)
            try FileManager.default.createDirectory(at: socket, withIntermediateDirectories: true)
            try "photosync-test-password\n".write(
                to: directory.appendingPathComponent("password"), atomically: true, encoding: .utf8)
            if let runAs {
                for path in [directory, socket, directory.appendingPathComponent("password")] {
                    try FileManager.default.setAttributes([.ownerAccountName: runAs], ofItemAtPath: path.path)
                }
            }
        } catch {
            throw .startFailed("cannot prepare \(directory.path): \(error)")
        }
    }

    private static func initdb(_ binaries: URL, _ directory: URL, runAs: String?) throws(PostgresClusterError) {
        try run(
            binaries.appendingPathComponent("initdb").path,
            ["-D", directory.appendingPathComponent("data").path, "-U", "photosync", "-E", "UTF8", "--locale=C",
             "--auth-local=trust", "--auth-host=scram-sha-256", "--pwfile=\(directory.appendingPathComponent("password").path)",
             "--no-sync"],
            as: runAs, in: directory)
    }

    private func startServer() throws(PostgresClusterError) {
        let options = [
            "-p \(port)", "-k \(socketDirectory.path)", "-c listen_addresses=127.0.0.1", "-c fsync=off",
            "-c synchronous_commit=off", "-c full_page_writes=off", "-c max_connections=200",
            // The log in files of the data directory, plain and as JSON (``statementLog``), never rotated.
            "-c logging_collector=on", "-c log_destination=stderr,jsonlog", "-c log_filename=server.log",
            "-c log_rotation_age=0", "-c log_rotation_size=0",
        ].joined(separator: " ")
        do {
            try Self.run(
                binaries.appendingPathComponent("pg_ctl").path,
                ["-D", directory.appendingPathComponent("data").path, "-l", directory.appendingPathComponent("server.log").path,
                 "-o", options, "-w", "-t", "60", "start"],
                as: runAs, in: directory)
        } catch {
            // What the server said before its logging collector started, then after.
            let log = ["server.log", "data/log/server.log"]
                .compactMap { try? String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }
                .joined(separator: "\n")
            throw .startFailed("pg_ctl start on port \(port) failed: \(error)\nserver log:\n\(log)")
        }
    }

    /// Starts the watchdog: once this process is gone, it stops the server and removes the directory.
    private static func watchForExit(_ binaries: URL, _ directory: URL, runAs: String?) throws(PostgresClusterError) {
        let stop = [runAs.map { "runuser -u \($0) -- " } ?? "", "'\(binaries.path)/pg_ctl' -D '\(directory.path)/data' -m immediate -w stop"]
            .joined()
        let script = "tail --pid=\(getpid()) -f /dev/null; \(stop) >/dev/null 2>&1; rm -rf '\(directory.path)'"
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = ["-c", script]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        do {
            try watchdog.run()
        } catch {
            throw .startFailed("cannot start the watchdog that stops the server: \(error)")
        }
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    private static func freePort() throws(PostgresClusterError) -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .startFailed("socket(): errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw .startFailed("cannot find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a command (as `user` through `runuser` when given) and returns its output (standard output and
    /// error, through a file).
    ///
    /// `posix_spawn` and `waitpid`, not Foundation's `Process`: `pg_ctl start` leaves the server running,
    /// and the server would inherit the descriptor `Process` watches for the end of its child — the wait
    /// would last as long as the server.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], as user: String?, in directory: URL) throws(PostgresClusterError)
        -> String
    {
        let argv = (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [executable] + arguments
        let command = argv.joined(separator: " ")
        // In the cluster's directory, which the watchdog removes even if this process is killed meanwhile.
        let outputPath = directory.appendingPathComponent("command-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else: the server outlives the command (see `addCloseFrom`).
        guard addCloseFrom(&actions, 3) == 0 else { throw .commandFailed(command, output: "cannot close inherited descriptors") }
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw .commandFailed(command, output: "posix_spawn: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw .commandFailed(command, output: "waitpid: errno \(errno)") }
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        guard exited && (status >> 8) & 0xff == 0 else {
            throw .commandFailed(command, output: text + (exited ? "" : "\n(killed by signal \(status & 0x7f))"))
        }
        return text
    }
}

/// Why the test server could not be started or used.
public enum PostgresClusterError: Error, CustomStringConvertible {
    /// PostgreSQL's binaries were not found.
    case binariesNotFound(String)
    /// The server did not start; the message holds its log.
    case startFailed(String)
    /// A command (`initdb`, `pg_ctl`, `psql`) failed.
    case commandFailed(String, output: String)

    public var description: String {
        switch self {
        case .binariesNotFound(let message): "PostgreSQL not found: \(message)"
        case .startFailed(let message): "PostgreSQL did not start: \(message)"
        case .commandFailed(let command, let output): "\(command) failed:\n\(output)"
        }
    }
}
