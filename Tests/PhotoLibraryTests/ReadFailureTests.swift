import Foundation
import Testing
@_spi(Benchmarks) @testable import PhotoLibrary

/// A library whose storage fails under a running process: reads report typed errors through the throwing
/// accessors, never a crash and never a silently short result.
@Suite struct ReadFailureTests {
    /// Overwrites a file's bytes with zeros in place: the same inode, so connections already open read them.
    static func zeroInPlace(_ url: URL) throws {
        guard let handle = FileHandle(forUpdatingAtPath: url.path) else { return }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        handle.write(Data(count: Int(size)))
        try handle.synchronize()
    }

    static func databaseFiles(_ library: PhotoLibrary) -> [URL] {
        ["", "-wal", "-shm"].map { library.url.appending(path: PhotoLibrary.databaseFileName + $0) }
    }

    static func expectThrowingAccessFails(_ result: FetchResult<Asset>, _ comment: Comment) {
        #expect(comment) { _ = try result.object(at: 200) } throws: { error in
            // The library says what failed, with the database's path.
            switch error as? PhotoLibraryError {
            case .storageUnavailable(let path, _), .corruptLibrary(let path, _): path.hasSuffix(PhotoLibrary.databaseFileName)
            default: false
            }
        }
        #expect(throws: PhotoLibraryError.self, comment) { _ = try result.objects(in: 0..<result.count) }
        #expect(throws: PhotoLibraryError.self, comment) { _ = try result.objects(at: [150, 250]) }
        var iterator = result.makeThrowingIterator()
        var read = 0
        #expect(throws: PhotoLibraryError.self, comment) {
            while try iterator.next() != nil { read += 1 }
        }
        #expect(read == FetchResult<Asset>.batchSize, "the cached first batch is read, then the error: \(comment)")
    }

    @Test("A fetch result whose database file was removed under the running process throws, without crashing")
    func databaseRemoved() throws {
        let test = try TestLibrary()
        try test.makeAssets(300)
        let result = try test.library.fetchAssets()
        #expect(try result.object(at: 0).localIdentifier == result[0].localIdentifier)  // the first batch is cached
        for file in Self.databaseFiles(test.library) { try? FileManager.default.removeItem(at: file) }
        // The next read takes a new connection, as a concurrent reader or a memory-pressure release does.
        test.library.database.invalidateReadOnlyConnections()
        Self.expectThrowingAccessFails(result, "removed")
    }

    @Test("A fetch result whose database was damaged under the running process throws, without crashing")
    func databaseOverwritten() throws {
        let test = try TestLibrary()
        try test.makeAssets(300)
        let result = try test.library.fetchAssets()
        _ = try result.object(at: 0)
        for file in Self.databaseFiles(test.library) where !file.path.hasSuffix("-shm") { try Self.zeroInPlace(file) }
        // Cached pages stay readable until the cache goes, as it does under memory pressure.
        test.library.database.releaseMemory()
        Self.expectThrowingAccessFails(result, "overwritten")
    }

    @Test("Iterating persistent changes over a failing snapshot throws instead of ending early")
    func persistentChangesOverAFailingSnapshot() throws {
        var options = PhotoLibrary.Options()
        options.durableCommits = false  // 300 commits, fast; durability is not what is tested
        let test = try TestLibrary(options: options)
        let start = try test.library.currentChangeToken
        // Long author names spread the journal over many pages: the second batch is not in the page cache.
        let author = String(repeating: "author ", count: 60)
        for index in 0..<300 {
            try test.library.performChangesAndWait(author: author) {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "album \(index)")
            }
        }
        let result = try test.library.fetchPersistentChanges(since: start)  // > 256: read batch by batch
        var iterator = result.makeThrowingIterator()
        var read = 0
        #expect(try iterator.next() != nil)  // the first batch
        read += 1
        for file in Self.databaseFiles(test.library) where !file.path.hasSuffix("-shm") { try Self.zeroInPlace(file) }
        #expect {
            while try iterator.next() != nil { read += 1 }
        } throws: { error in
            guard case .corruptLibrary(let path, _) = error as? PhotoLibraryError else { return false }
            return path.hasSuffix(PhotoLibrary.databaseFileName)
        }
        #expect(read == PersistentChangeFetchResult.batchSize)
    }
}
