import Foundation
import Testing

@testable import MediaProbe

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Unreadable files throw typed errors")
struct ProbeErrorTests {
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("probe-errors-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func error(probing path: String) -> ProbeError? {
        do {
            _ = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now)
            return nil
        } catch {
            return error
        }
    }

    @Test func vanishedFile() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/gone.jpg"
        try Data(try Fixture.bytes("camera.jpg")).write(to: URL(fileURLWithPath: path))
        #expect(try MediaProbe.probe(fileAt: path).format == .jpeg)
        try FileManager.default.removeItem(atPath: path)
        let error = try #require(Self.error(probing: path))
        #expect(error.path == path)
        #expect(error.errno == ENOENT)
        #expect(error.reason == .notFound)
        #expect(error.operation == "open")
        #expect(error.description.contains(path))
        // A path through a file: ENOTDIR, also "not found".
        let through = try #require(Self.error(probing: try Fixture.path("camera.jpg") + "/x"))
        #expect(through.errno == ENOTDIR && through.reason == .notFound)
    }

    @Test func directory() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = try #require(Self.error(probing: directory))
        #expect(error.errno == EISDIR && error.reason == .isDirectory && error.path == directory)
        #expect(throws: ProbeError.self) { try MediaProbe.detectFormat(fileAt: directory) }
    }

    @Test("a FIFO is rejected without blocking")
    func fifo() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/pipe.jpg"
        #expect(mkfifo(path, 0o644) == 0)
        let error = try #require(Self.error(probing: path))
        #expect(error.reason == .notRegularFile && error.errno == EINVAL)
    }

    @Test("permission denied (skipped as root, where chmod 000 does not deny reads)")
    func permissionDenied() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/secret.jpg"
        try Data(try Fixture.bytes("camera.jpg")).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0) == 0)
        defer { _ = chmod(path, 0o644) }
        if geteuid() == 0 {
            // Root reads anyway: the probe succeeds. The denied case is covered where tests run unprivileged;
            // the directory and vanished-path cases above cover the error path here.
            #expect(try MediaProbe.probe(fileAt: path).format == .jpeg)
            return
        }
        let error = try #require(Self.error(probing: path))
        #expect(error.errno == EACCES && error.reason == .permissionDenied && error.path == path)
    }

    @Test func emptyFileIsNotMedia() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/empty.jpg"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let result = try MediaProbe.probe(fileAt: path)
        #expect(!result.isMedia && result.file?.size == 0)
    }
}
