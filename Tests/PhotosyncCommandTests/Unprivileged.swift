import Foundation
import PostgresTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Runs `photosync` as a user that file permissions apply to: `nobody` through `setpriv` when the tests run
/// as root (root reads every file), else the current user. For the tests of files that can't be read.
struct Unprivileged {
    /// A directory that user can write: the library (or a PostgreSQL library's files) and folders of the
    /// test go inside.
    let directory: URL
    /// What `--library` says: the SQLite library's path, or a new PostgreSQL database's URL.
    let libraryArgument: String
    let engine: LibraryEngine

    init(_ engine: LibraryEngine = .sqlite) throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "photosync-unprivileged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        self.engine = engine
        libraryArgument = engine == .postgres
            ? try PostgresCluster.shared().makeDatabase(prefix: "cli").absoluteString
            : directory.appending(path: "Library.photosync").path
    }

    /// A SQLite library's directory; a PostgreSQL library's files directory.
    var library: URL { directory.appending(path: engine == .postgres ? "files" : "Library.photosync") }

    /// A folder that user owns (or can write), with the given files.
    func folder(_ name: String, files: [String: Data]) throws -> URL {
        let folder = directory.appending(path: name)
        for (path, data) in files {
            let url = folder.appending(path: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        try openUp(folder)
        return folder
    }

    /// Makes every directory under `url` writable and every file readable by everyone.
    private func openUp(_ url: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: url.path)
        for item in try FileManager.default.subpathsOfDirectory(atPath: url.path) {
            let path = url.appending(path: item).path
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            try FileManager.default.setAttributes([.posixPermissions: isDirectory.boolValue ? 0o777 : 0o666], ofItemAtPath: path)
        }
    }

    /// Runs `photosync --library LIBRARY arguments…` as the unprivileged user.
    func run(_ arguments: [String]) throws -> Photosync.Result {
        let process = Process()
        let command = [Photosync.binary.path] + Photosync.placingLibrary(libraryArgument, in: arguments)
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command
        } else {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path
        environment["XDG_DATA_HOME"] = directory.path
        if engine == .postgres { environment["PHOTOSYNC_LIBRARY_FILES"] = library.path }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = Photosync.Collector(err)
        let stdout = Photosync.Collector(out).finish()
        process.waitUntilExit()
        return Photosync.Result(status: process.terminationStatus, stdout: stdout, stderr: errors.finish())
    }

    func cleanUp() {
        _ = try? FileManager.default.subpathsOfDirectory(atPath: directory.path).forEach {
            try? FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.appending(path: $0).path)
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
