import Foundation
import MediaProbe
import PhotoLibrary
import Testing

@testable import SyncWorker

/// Runs `body` on a thread of its own whose file-system user is `nobody` (setfsuid is per thread, and
/// dropping it from root clears the thread's CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), so that mode 000
/// really denies access even when the tests run as root.
func asNobody<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    typealias SetFSUID = @convention(c) (UInt32) -> Int32
    let handle = dlopen(nil, RTLD_NOW)
    let setfsuid = unsafeBitCast(dlsym(handle, "setfsuid"), to: SetFSUID.self)
    return await withCheckedContinuation { continuation in
        let thread = Thread {
            let previous = setfsuid(65534)
            let result = body()
            _ = setfsuid(UInt32(previous))
            continuation.resume(returning: result)
        }
        thread.start()
    }
}

@Suite("Sync worker: unreadable files and folders")
struct UnreadableTests {
    @Test("A file that cannot be read is reported and kept; a folder that cannot be listed keeps what is mirrored under it", arguments: LibraryEngine.both)
    func permissionDenied(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("open/a.jpg", Media.jpeg(1))
        box.write("locked/b.jpg", Media.jpeg(2))
        box.write("secret.jpg", Media.jpeg(3))
        let root = box.root.path
        let recorded = Dictionary(uniqueKeysWithValues: ["open/a.jpg", "locked/b.jpg", "secret.jpg"].map { path in
            (path, MirroredFile(relativePath: path, stamp: FileSystem.stamp(root + "/" + path)!.0, contentHash: "", assetIdentifier: nil))
        })
        chmod(box.path("locked"), 0o000)
        chmod(box.path("secret.jpg"), 0o000)
        box.append("secret.jpg", [1])  // changed since recorded: must be read again
        defer {
            chmod(box.path("locked"), 0o755)
            chmod(box.path("secret.jpg"), 0o644)
        }
        let stamp = FileSystem.stamp(root + "/secret.jpg")!.0
        let (snapshot, outcome) = await asNobody { () -> (DiskSnapshot, String) in
            var walker = DiskWalker(root: root, ignore: IgnoreRules(), libraries: LibraryExclusion(root: root, library: box.library.url))
            var snapshot = DiskSnapshot()
            walker.walk("", into: &snapshot)
            let outcome = FileHasher.hash(root: root, path: "secret.jpg", stamp: stamp, timeZone: .gmt, buffer: ProbeBuffer())
            if case .unreadable(let reason) = outcome { return (snapshot, reason) }
            return (snapshot, "readable")
        }
        #expect(snapshot.unreadableDirectories == ["locked"])
        #expect(snapshot.skipped.contains { $0.path == "locked" && $0.reason.hasPrefix("directory unreadable") })
        #expect(outcome.contains("Permission denied"))
        // The plan keeps what lies under the folder it could not list, and hashes the changed file (whose
        // unreadability then keeps it: see MirrorEngine).
        let plan = Reconciler.plan(disk: snapshot.files, recorded: recorded) { snapshot.isUnderUnreadableDirectory($0) }
        #expect(plan.vanished.isEmpty)
        #expect(plan.toHash.map(\.path) == ["secret.jpg"])
        #expect(plan.unchanged == 1)
    }
}
