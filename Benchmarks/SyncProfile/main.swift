// A driver for profiling the sync worker's initial scan under `valgrind --tool=callgrind`, where instruction
// counts are repeatable on a busy machine (wall-clock ratios come from SyncBenchmarks). The scan's work runs
// on the engine's actor and on its workers' threads, so the whole process is counted; `base` runs the same
// process with an empty tree (start, library creation), to subtract:
//
//     swift build -c release --product SyncProfile
//     objcopy --strip-debug .build/release/SyncProfile /tmp/SyncProfile
//     valgrind --tool=callgrind /tmp/SyncProfile scan images 3000
//     valgrind --tool=callgrind /tmp/SyncProfile scan base
//
// (Debian 12's valgrind 3.19 gives up on the DWARF 5 debug information of a release build, "unhandled dwarf2
// abbrev form code 0x25": the copy without it keeps the symbols callgrind_annotate names functions by.) The
// first run of a COUNT copies its files into a tree of their own, which that run counts too: count the second.
// Usage: SyncProfile scan TREE [COUNT] [timed] [cold]
//   TREE   images (the image tree of SyncBenchmarks: JPEG, HEIC, PNG), small (100,000 files of 900 bytes),
//          base (an empty directory), or a directory.
//   COUNT  for images and small: scan only the first COUNT files (copied into a tree of their own under /tmp,
//          kept for the next run).
//   timed  print the scan's wall-clock time, the processor time of the whole process and the summary.
//   threads print the processor time of the process's busiest threads (those still alive) at the end.
//   phases print when each phase of the scan began (walking, hashing, deleting, done), from the scan's start.
//   cold   leave the tree as the page cache has it (by default it is read once first, so the scan runs warm):
//          after `sync; echo 3 > /proc/sys/vm/drop_caches` (root), a scan of files read from the disk.
// The scan runs in a task while the main thread waits on a semaphore: valgrind cannot run a process whose main
// thread parks in dispatch_main.
import Foundation
import PhotoLibrary
import SyncFixtures
import SyncWorker
import Synchronization

/// The first `count` files of a fixture tree, in a tree of their own.
func subtree(_ tree: URL, name: String, count: Int?) throws -> URL {
    guard let count else { return tree }
    let copy = SyncFixtures.base.appending(path: "\(name)-first-\(count)")
    let done = copy.appendingPathExtension("complete")
    if FileManager.default.fileExists(atPath: done.path) { return copy }
    try? FileManager.default.removeItem(at: copy)
    for relative in SyncFixtures.files(in: tree).prefix(count) {
        let target = copy.appending(path: relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: tree.appending(path: relative), to: target)
    }
    _ = FileManager.default.createFile(atPath: done.path, contents: nil)
    return copy
}

/// Each live thread's name and processor time (user, system) so far, in seconds, from /proc/self/task: the
/// busiest first.
func threadTimes() -> [(name: String, user: Double, system: Double)] {
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    let times = tasks.compactMap { task -> (name: String, user: Double, system: Double)? in
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"), let open = stat.firstIndex(of: "(")
        else { return nil }
        // After the name: state, then 10 fields before utime and stime (fields 14 and 15 of proc(5)).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (String(stat[stat.index(after: open)..<close]), user / ticks, system / ticks)
    }
    return times.sorted { $0.user + $0.system > $1.user + $1.system }
}

/// User and system time of the whole process so far, in seconds.
func processorTime() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let time = { (t: timeval) in Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return time(usage.ru_utime) + time(usage.ru_stime)
}

func main() throws {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.first == "scan", arguments.count >= 2 else {
        FileHandle.standardError.write(Data("usage: SyncProfile scan images|small|DIR [COUNT] [timed] [cold] [batch=FILES]\n".utf8))
        exit(2)
    }
    let name = arguments[arguments.startIndex + 1]
    let count = arguments.dropFirst(2).first.flatMap { Int($0) }
    let timed = arguments.contains("timed")
    let tree: URL
    switch name {
    case "images": tree = try subtree(SyncFixtures.imageTree, name: "images", count: count)
    case "small": tree = try subtree(SyncFixtures.smallTree, name: "small", count: count)
    case "base":
        tree = SyncFixtures.base.appending(path: "empty")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
    default: tree = URL(fileURLWithPath: name)
    }
    if !arguments.contains("cold") { try SyncFixtures.warm(tree) }
    let (library, url) = try SyncFixtures.temporaryLibrary()
    defer { try? FileManager.default.removeItem(at: url) }
    // Batches by file count only, as on a machine that reads 500 files within the time limit: under callgrind
    // (some 50 times slower) the time limit would cut every batch short, and the counts would follow the clock.
    var options = FolderMirrorOptions()
    options.batchTimeLimit = .seconds(3600)
    if let limit = arguments.first(where: { $0.hasPrefix("batch=") }).flatMap({ Int($0.dropFirst(6)) }) {
        options.batchFileLimit = limit
    }
    let mirror = try FolderMirror(library: library, root: tree, options: options)
    let cpuBefore = processorTime()
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<(ScanSummary, Duration), any Error>?>(nil)
    let phases = Mutex<[(ScanProgress.Phase, ContinuousClock.Instant)]>([])
    @Sendable func record(_ progress: ScanProgress) {
        let now = ContinuousClock.now
        phases.withLock { seen in
            if seen.last?.0 != progress.phase { seen.append((progress.phase, now)) }
        }
    }
    let report: (@Sendable (ScanProgress) -> Void)? = arguments.contains("phases") ? record : nil
    let start = ContinuousClock.now
    Task {
        let result: Result<(ScanSummary, Duration), any Error>
        do {
            let summary = try await mirror.scan(progress: report)
            result = .success((summary, ContinuousClock.now - start))
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    let (summary, duration) = try outcome.withLock { $0! }.get()
    if timed {
        let cpu = processorTime() - cpuBefore
        print("\(summary.inserted) inserted, \(summary.bytesHashed) bytes in \(duration), processor time \(cpu) s")
    }
    for (phase, instant) in phases.withLock({ $0 }) { print("\(phase.rawValue) at \(instant - start)") }
    if arguments.contains("threads") {
        for thread in threadTimes().prefix(6) { print("thread \(thread.name): user \(thread.user) s, system \(thread.system) s") }
    }
}

try main()
