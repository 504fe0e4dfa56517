// Generated trees for the sync worker's benchmarks and its profile driver, built once and kept in /tmp.
import FixtureFolders
import Foundation
@_spi(Benchmarks) public import PhotoLibrary
import SyncWorker

/// Generated trees, built once and kept in /tmp between runs.
public enum SyncFixtures {
    public static let base = URL(fileURLWithPath: "/tmp/photosync-sync-benchmarks-v1")

    /// A real JPEG (the test fixture) whose bytes are made unique per file by a suffix after its end marker.
    public static let jpeg: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Tests/SyncWorkerTests/Fixtures/camera.jpg")
        return [UInt8](try! Data(contentsOf: url))
    }()

    /// 100,000 files of about 900 bytes in 500 folders of 200.
    public static var smallTree: URL {
        build("small-100k") { root in
            for folder in 0..<500 {
                let directory = root.appending(path: String(format: "%03d", folder))
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for file in 0..<200 {
                    let bytes = jpeg + Array("file \(folder)-\(file)".utf8)
                    try Data(bytes).write(to: directory.appending(path: "IMG_\(file).jpg"))
                }
            }
        }
    }

    /// 1 GiB: 32 files of 32 MiB (a JPEG head, then pseudo-random bytes), for hashing throughput.
    public static var largeFiles: URL {
        build("large-1g") { root in
            let size = 32 << 20
            for file in 0..<32 {
                var bytes = [UInt8](repeating: 0, count: size)
                bytes.replaceSubrange(0..<jpeg.count, with: jpeg)
                var state = UInt64(file + 1) &* 0x9E37_79B9_7F4A_7C15
                bytes.withUnsafeMutableBytes { raw in
                    let words = raw.baseAddress!.advanced(by: 4096).assumingMemoryBound(to: UInt64.self)
                    for index in 0..<((size - 4096) / 8) {
                        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        words[index] = state
                    }
                }
                try Data(bytes).write(to: root.appending(path: "VID_\(file).jpg"))
            }
        }
    }

    /// A library that has mirrored the small tree already (for rescans).
    public static func scannedLibrary(of tree: URL) async throws -> PhotoLibrary {
        let url = base.appending(path: "library-small-100k")
        let done = url.appending(path: ".complete")
        if !FileManager.default.fileExists(atPath: done.path) {
            try? FileManager.default.removeItem(at: url)
            var options = PhotoLibrary.Options()
            options.durableCommits = false
            let library = try PhotoLibrary(url: url, options: options)
            _ = try await FolderMirror(library: library, root: tree).scan()
            _ = FileManager.default.createFile(atPath: done.path, contents: nil)
        }
        return try PhotoLibrary(url: url)
    }

    static func build(_ name: String, _ fill: (URL) throws -> Void) -> URL { FixtureFolder.make(name, in: base, fill) }

    /// A new library in a temporary directory: the library and the directory to remove afterwards.
    public static func temporaryLibrary() throws -> (PhotoLibrary, URL) {
        let url = FileManager.default.temporaryDirectory.appending(path: "photosync-sync-bench-\(UUID().uuidString)")
        return (try PhotoLibrary(url: url), url)
    }

    /// Runs a command with its output discarded; returns its exit status.
    ///
    /// - Parameter directory: its working directory (the current one when nil).
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The regular files under `directory`, recursively, sorted, by their paths relative to it. (By `readdir`:
    /// FileManager's enumerator reads the owner's name of every file, from /etc/passwd.)
    public static func files(in directory: URL) -> [String] {
        var files: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            guard let handle = opendir(relative.isEmpty ? directory.path : directory.path + "/" + relative) else { continue }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name != ".", name != ".." else { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_DIR): pending.append(path)
                case Int32(DT_REG): files.append(path)
                default: break
                }
            }
            closedir(handle)
        }
        return files.sorted()
    }

    /// Reads every file under `directory` once, so that what follows runs with a warm page cache. (In this
    /// process: valgrind cannot start a subprocess through Foundation's `Process`.)
    public static func warm(_ directory: URL) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        for relative in files(in: directory) {
            let descriptor = open(directory.path + "/" + relative, O_RDONLY)
            guard descriptor >= 0 else { throw FixtureError("cannot open \(relative)") }
            while read(descriptor, buffer.baseAddress, buffer.count) > 0 {}
            close(descriptor)
        }
    }
}
