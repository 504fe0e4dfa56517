// CPU time, which the machine's load barely changes, beside wall-clock time, which it stretches.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU time spent by this process, and by the benchmarks' PostgreSQL server.
public enum CPUTime {
    /// User and system time of every thread of this process so far.
    public static func process() -> Duration {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return .seconds(Int64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec))
            + .microseconds(Int64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec))
    }
}

extension PostgresServer {
    /// User and system time of the server so far: the postmaster and its children (backends and background
    /// processes) that are running, from `/proc` (clock ticks: 10 ms steps, so read it over many operations).
    /// A backend that has ended is no longer counted: read it while the benchmark's connections are open.
    public func cpuTime() throws -> Duration {
        let pidLine = try String(contentsOf: data.appending(path: "postmaster.pid"), encoding: .utf8).split(separator: "\n").first
        guard let postmaster = pidLine.flatMap({ Int($0) }) else { throw PostgresServerError.startFailed("no postmaster.pid") }
        let ticks = Int64(sysconf(Int32(_SC_CLK_TCK)))
        var total: Int64 = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm) ": state, ppid, … utime is field 14 and stime 15 of the whole line.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count > 13, let parent = Int(fields[1]), pid == postmaster || parent == postmaster,
                let user = Int64(fields[11]), let system = Int64(fields[12])
            else { continue }
            total += user + system
        }
        return .milliseconds(total * 1000 / ticks)
    }
}
