// Running PostgreSQL's commands (initdb, pg_ctl, psql) from the benchmark process.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs commands to their end, their output (standard output and error) into a file, read back.
///
/// The child inherits only its standard descriptors. `pg_ctl start` leaves the server running, and a server
/// holding one of the benchmark process's descriptors would keep it open as long as it runs — among them the
/// pipes package-benchmark talks to the benchmark process through, which would then never see it end. So
/// every descriptor above 2 is marked close-on-exec before the spawn (set-up code: no other thread of the
/// benchmark is opening files meanwhile).
enum Spawn {
    /// Runs `argv` (the first element an absolute path) in `directory`, as `user` through `runuser` when given.
    ///
    /// - Returns: what the command printed.
    /// - Throws: ``PostgresServerError/commandFailed(_:output:)`` when it can't be started or exits non-zero.
    @discardableResult
    static func run(_ argv: [String], as user: String? = nil, outputIn directory: URL) throws -> String {
        // In `directory` (`env -C`): the user the command runs as may not be allowed into this process's.
        let argv = (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + ["/usr/bin/env", "-C", directory.path] + argv
        let output = directory.appending(path: "spawn-\(getpid())-\(UUID().uuidString).out").path
        defer { unlink(output) }
        let pid = try start(argv, output: output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw PostgresServerError.commandFailed(argv.joined(separator: " "), output: "waitpid: errno \(errno)") }
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let how = status & 0x7f == 0 ? "exit status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
            throw PostgresServerError.commandFailed(argv.joined(separator: " "), output: "\(how)\n\(text)")
        }
        return text
    }

    /// Starts `argv` without waiting for it (its output into `output`, or nowhere).
    ///
    /// - Returns: its process id.
    @discardableResult
    static func start(_ argv: [String], output: String = "/dev/null") throws -> pid_t {
        closeOnExec()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, arguments, environ)
        guard spawned == 0 else {
            throw PostgresServerError.commandFailed(argv.joined(separator: " "), output: "posix_spawn: error \(spawned)")
        }
        return pid
    }

    /// Marks every open descriptor above 2 close-on-exec.
    private static func closeOnExec() {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in descriptors.compactMap({ Int32($0) }) where descriptor > 2 {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
