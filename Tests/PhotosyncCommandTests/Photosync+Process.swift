import Foundation
import PostgresTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `photosync` binary, run as a subprocess on temporary libraries.
///
/// Every call names its library with `--library` before the command (the global options may come first),
/// and runs with `HOME`, `XDG_DATA_HOME` and `PHOTOSYNC_LIBRARY` pointing into a temporary directory, so that
/// no test can touch the user's own default library. `PHOTOSYNC_TEST_BINARY` runs the tests against another
/// build (to check that a test fails without the change it covers); `--library` then follows the command.
struct Photosync {
    static var binary: URL {
        if let other = ProcessInfo.processInfo.environment["PHOTOSYNC_TEST_BINARY"], !other.isEmpty {
            return URL(fileURLWithPath: other)
        }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appending(path: "photosync")
    }

    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var samples: URL { repository.appending(path: "Samples") }

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        var trimmed: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }

        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "not a JSON object: \(stdout)")
        }

        func jsonLines() throws -> [[String: Any]] {
            try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        }

        /// The JSON error report on stderr.
        func errorReport() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(stderr.utf8)) as? [String: Any], "not a JSON error: \(stderr)")
        }
    }

    /// The temporary directory of this instance: its library, and its home.
    let directory: URL
    /// A SQLite library's directory; a PostgreSQL library's files directory.
    let library: URL
    let engine: LibraryEngine
    /// What `--library` says: the SQLite library's path, or the PostgreSQL database's URL (with its password).
    let libraryArgument: String

    /// A SQLite library in a temporary directory.
    init() {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-cli-\(UUID().uuidString)")
        let library = directory.appending(path: "Library.photosync")
        self.init(directory: directory, library: library, engine: .sqlite, libraryArgument: library.path)
    }

    /// A library on `engine`: a SQLite library in a temporary directory, or a new, empty PostgreSQL database of
    /// the tests' cluster (``PostgresCluster``) with its files directory in the temporary directory. A
    /// cluster that can't start fails the test.
    init(_ engine: LibraryEngine) throws {
        guard engine == .postgres else {
            self.init()
            return
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-cli-\(UUID().uuidString)")
        let url = try PostgresCluster.shared().makeDatabase(prefix: "cli")
        self.init(directory: directory, library: directory.appending(path: "files"), engine: .postgres, libraryArgument: url.absoluteString)
    }

    private init(directory: URL, library: URL, engine: LibraryEngine, libraryArgument: String) {
        self.directory = directory
        self.library = library
        self.engine = engine
        self.libraryArgument = libraryArgument
        try? FileManager.default.createDirectory(at: directory.appending(path: "home"), withIntermediateDirectories: true)
    }

    /// Where messages and JSON say the library is: its path, or its URL with `***` for the password.
    var shownLibrary: String {
        engine == .sqlite ? library.path : libraryArgument.replacingOccurrences(of: ":\(PostgresCluster.testPassword)@", with: ":***@")
    }

    /// Whether the library exists: its database file, or its tables in the PostgreSQL database (psql).
    var libraryExists: Bool {
        get throws {
            guard engine == .postgres else { return FileManager.default.fileExists(atPath: library.path) }
            let database = try #require(URL(string: libraryArgument)).lastPathComponent
            let answer = try PostgresCluster.shared().runSQL("SELECT to_regclass('photosync_schema_migration') IS NOT NULL", database: database)
            return answer.trimmingCharacters(in: .whitespacesAndNewlines) == "t"
        }
    }


    /// The environment of the child: a temporary home, and the given overrides.
    func environment(_ extra: [String: String], unset: [String] = []) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.appending(path: "home").path
        environment["XDG_DATA_HOME"] = directory.appending(path: "home/.local/share").path
        environment["PHOTOSYNC_LIBRARY"] = libraryArgument
        if engine == .postgres { environment["PHOTOSYNC_LIBRARY_FILES"] = library.path }
        environment["COLUMNS"] = "100"
        environment.removeValue(forKey: "PHOTOSYNC_LOG_LEVEL")
        environment.merge(extra) { _, new in new }
        for name in unset { environment.removeValue(forKey: name) }
        return environment
    }

    /// Starts `photosync --library LIBRARY arguments…` (without `--library` when `withLibrary` is false).
    func start(
        _ arguments: [String], environment extra: [String: String] = [:], unset: [String] = [], withLibrary: Bool = true,
        stdin: FileHandle? = nil
    ) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = withLibrary ? Self.placingLibrary(libraryArgument, in: arguments) : arguments
        process.environment = environment(extra, unset: unset)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    /// `--library PATH` before the command; after it when testing another build, which may not take the
    /// global options first (every build takes them after the command).
    static func placingLibrary(_ path: String, in arguments: [String]) -> [String] {
        let otherBuild = !(ProcessInfo.processInfo.environment["PHOTOSYNC_TEST_BINARY"] ?? "").isEmpty
        guard otherBuild, let command = arguments.first, !command.hasPrefix("-") else { return ["--library", path] + arguments }
        return [command, "--library", path] + arguments.dropFirst()
    }

    @discardableResult
    func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    func run(_ arguments: [String], environment: [String: String] = [:], unset: [String] = [], withLibrary: Bool = true) throws -> Result {
        let (process, out, err) = try start(arguments, environment: environment, unset: unset, withLibrary: withLibrary)
        // Both pipes at once: a child that fills one while we block on the other would hang.
        let stdout = Collector(out), stderr = Collector(err)
        let result = (stdout.finish(), stderr.finish())
        process.waitUntilExit()
        // Whatever the command, no output ever shows the database's password.
        #expect(!result.0.contains(PostgresCluster.testPassword) && !result.1.contains(PostgresCluster.testPassword),
                "photosync \(arguments) printed the password: \(result.0)\(result.1)")
        return Result(status: process.terminationStatus, stdout: result.0, stderr: result.1)
    }

    /// Runs another program to its end: its exit status and output.
    static func runTool(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = Collector(out), stderr = Collector(err)
        let result = (stdout.finish(), stderr.finish())
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: result.0, stderr: result.1)
    }

    /// The current change token.
    func token() throws -> String {
        try run("token").trimmed
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass; whether it held.
    static func waitUntil(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// Reads `pipe` on a background thread, collecting what arrives (for a process still running).
    final class Collector: Sendable {
        private let data = Mutex(Data())
        private let done = DispatchGroup()

        init(_ pipe: Pipe) {
            done.enter()
            let handle = pipe.fileHandleForReading
            DispatchQueue.global().async {
                // read(2) directly: FileHandle.availableData traps on EINTR, which a child's exit can cause.
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    self.data.withLock { $0.append(contentsOf: buffer[0..<count]) }
                }
                self.done.leave()
            }
        }

        var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }

        /// Everything, once the writer closed the pipe.
        func finish() -> String {
            done.wait()
            return text
        }
    }
}

/// A temporary copy of the bundled samples (6 media files in 3 directories).
func sampleFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appending(path: "photosync-folder-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: Photosync.samples, to: folder)
    return folder
}

/// The storage engines the command suite runs on.
enum LibraryEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

extension PostgresCluster {
    /// The password of the tests' cluster, which no output of photosync may show.
    static var testPassword: String { "photosync-test-password" }
}
