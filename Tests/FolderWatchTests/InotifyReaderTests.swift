import Foundation
import Testing
@testable import FolderWatch
#if canImport(Glibc)
import Glibc
#endif

/// The one reader of inotify records, shared by the folder watcher and the library's commit notifier.
@Suite struct InotifyReaderTests {
    @Test("records of a real instance: name, mask and order, with a buffer grown for a long name")
    func readsRecords() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "inotify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = try InotifyReader()
        defer { reader.close() }
        let watch = try reader.addWatch(directory.path, mask: UInt32(IN_CREATE) | UInt32(IN_DELETE))
        let long = String(repeating: "n", count: 200)
        for name in ["a", long] { close(open(directory.appending(path: name).path, O_CREAT | O_WRONLY, 0o644)) }
        unlink(directory.appending(path: "a").path)

        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer { buffer.deallocate() }
        var records: [InotifyReader.Record] = []
        var outcomes: [InotifyReader.ReadOutcome] = []
        while records.count < 3 {
            var ready = pollfd(fd: reader.descriptor, events: Int16(POLLIN), revents: 0)
            #expect(poll(&ready, 1, 10_000) == 1, "the records arrive")
            outcomes.append(reader.read(into: &buffer) { records.append($0) })
        }
        #expect(records.map(\.name) == ["a", long, "a"])
        #expect(records.allSatisfy { $0.watch == watch })
        #expect(records.map { $0.mask & (UInt32(IN_CREATE) | UInt32(IN_DELETE)) } == [UInt32(IN_CREATE), UInt32(IN_CREATE), UInt32(IN_DELETE)])
        #expect(outcomes.contains(.bufferGrown), "a 64-byte buffer can't hold a 200-byte name: \(outcomes)")
        #expect(buffer.count >= 16 + 201)
        #expect(reader.read(into: &buffer) { _ in } == .empty, "nothing more is waiting")
    }

    @Test("parsing: several records in one read, names NUL-padded or absent")
    func parses() {
        var bytes: [UInt8] = []
        func record(_ watch: Int32, _ mask: UInt32, _ cookie: UInt32, _ name: String, padding: Int) {
            let nameBytes = name.isEmpty ? [] : Array(name.utf8) + [UInt8](repeating: 0, count: padding)
            for value in [UInt32(bitPattern: watch), mask, cookie, UInt32(nameBytes.count)] {
                withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
            }
            bytes += nameBytes
        }
        record(3, 0x100, 0, "photo.jpg", padding: 7)
        record(-1, 0x4000, 0, "", padding: 0)
        record(5, 0x40, 42, "é", padding: 1)
        var parsed: [InotifyReader.Record] = []
        bytes.withUnsafeBytes { InotifyReader.parse($0) { parsed.append($0) } }
        #expect(parsed == [
            .init(watch: 3, mask: 0x100, cookie: 0, name: "photo.jpg"),
            .init(watch: -1, mask: 0x4000, cookie: 0, name: ""),
            .init(watch: 5, mask: 0x40, cookie: 42, name: "é"),
        ])
    }
}
