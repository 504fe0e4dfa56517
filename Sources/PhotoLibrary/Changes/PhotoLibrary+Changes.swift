import Foundation
import ContentHash
import GRDB
import LibraryStorage
import PostgresStore

extension PhotoLibrary {
    /// The author recorded for commits that don't name one: the process's name.
    public static var defaultAuthor: String { ProcessInfo.processInfo.processName }

    /// Runs a change block and commits every request made in it in one transaction of the library's storage
    /// engine — all or nothing.
    ///
    /// Inside the block, make requests with ``AssetChangeRequest``, ``AssetCollectionChangeRequest`` and
    /// ``CollectionListChangeRequest``. When the block returns, derived collections (smart albums, moments,
    /// year lists, burst representatives) are brought up to date and the change journal records the
    /// transaction, inside the same transaction. The call returns once the commit is durable.
    ///
    /// The block runs on the library's writer; don't call back into this library's change methods from it.
    /// Requests belong to their block: use them only in it, on its thread. A request used anywhere else — kept
    /// after the block, or used from a task or thread the block started — never reaches the library: the block
    /// it is used in throws ``PhotoLibraryError/notInChangeBlock``, and where no block is left to fail (after
    /// its block returned, outside any block) the process traps naming that error, as PhotoKit raises an
    /// exception.
    ///
    /// - Parameters:
    ///   - author: recorded with the transaction in the change history (clients can leave their own changes
    ///     out of what they fetch).
    ///   - changes: the change block. What it returns is the call's result, once committed — typically the
    ///     identifier of an object it created:
    ///     `let id = try await library.performChanges { …; return placeholder.localIdentifier }`.
    /// - Returns: the block's result.
    /// - Throws: the first ``PhotoLibraryError`` a request met (the library is then exactly as it was),
    ///   ``PhotoLibraryError/notInChangeBlock`` for a request used outside its block, or the error the block
    ///   threw.
    @discardableResult @_disfavoredOverload
    public func performChanges<Result: Sendable>(
        author: String = PhotoLibrary.defaultAuthor, _ changes: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        try await commitChanges(author: author, changes)
    }

    /// Runs a change block that returns nothing and commits it: the call blocks have always had.
    ///
    /// This overload is preferred to the generic one (which is `@_disfavoredOverload`), so that a block that
    /// is a single expression — `{ AssetChangeRequest.creationRequestForAsset(fromFileAt: url) }` — stays a
    /// block returning nothing, as before the result was passed on, instead of returning its (non-`Sendable`)
    /// request. To pass on the value of a single expression, write `return`:
    /// `let id = try await library.performChanges { return makeAlbum() }`.
    public func performChanges(
        author: String = PhotoLibrary.defaultAuthor, _ changes: @escaping @Sendable () throws -> Void
    ) async throws {
        try await commitChanges(author: author, changes)
    }

    /// Runs a change block and commits it, synchronously, returning what the block returns. See
    /// `performChanges(author:_:)`.
    ///
    /// - Returns: the block's result.
    /// - Throws: the first ``PhotoLibraryError`` a request met (the library is then exactly as it was),
    ///   ``PhotoLibraryError/notInChangeBlock`` for a request used outside its block, or the error the block
    ///   threw.
    @discardableResult @_disfavoredOverload
    public func performChangesAndWait<Result>(
        author: String = PhotoLibrary.defaultAuthor, _ changes: () throws -> Result
    ) throws -> Result {
        try commitChangesAndWait(author: author, changes)
    }

    /// Runs a change block that returns nothing and commits it, synchronously (preferred to the generic
    /// overload, as for `performChanges`).
    public func performChangesAndWait(author: String = PhotoLibrary.defaultAuthor, _ changes: () throws -> Void) throws {
        try commitChangesAndWait(author: author, changes)
    }

    private func commitChanges<Result: Sendable>(
        author: String, _ changes: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        // The engine's calls block their thread: run the commit on the library's commit queue, not on the
        // caller's executor (a cooperative thread waiting on the writer would starve the pool). The queue is
        // serial: commits wait there for the one writer without holding a thread each.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            commitQueue.async { [self] in
                continuation.resume(with: Swift.Result { try commitChangesAndWait(author: author, changes) })
            }
        }
    }

    private func commitChangesAndWait<Result>(author: String, _ changes: () throws -> Result) throws -> Result {
        let outcome: (value: Result, committed: CommittedWrite)
        var walIndex: (region: UnsafeRawPointer, before: WALIndexHeader)?
        do {
            outcome = try storage.write { db in
                walIndex = Self.walIndexAtWriteLock(db)
                return try runChangeBlock(db, author: author, changes)
            }
        } catch {
            throw Self.mapKeepingForeign(error, path: databasePath)
        }
        // Committed: hand the journal off and tell waiters at once, from the thread that committed (the
        // notification doesn't wait for the caller's task to be scheduled again).
        if var handOff = outcome.committed.handOff {
            if let walIndex { observation.handOff.noteWALIndex(walIndex.region) }
            handOff.walHeader = walIndex.flatMap { Self.headerOfOwnCommit(region: $0.region, before: $0.before) }
            observation.handOff.publish(handOff)
        }
        notifyCommit(outcome.committed)
        removeReleasedOriginals(outcome.committed)
        return outcome.value
    }

    /// Maps database errors; an error thrown by the caller's block goes through unchanged.
    static func mapKeepingForeign(_ error: any Error, path: String) -> any Error {
        if error is PhotoLibraryError || error is DatabaseError || error is PostgresStoreError { return map(error, path: path) }
        return error
    }

    struct CommittedWrite: Sendable {
        let transaction: JournalTransaction?
        let releasedOriginals: Set<String>
        /// Set when a client marked its state changed (``LibraryTransaction/clientStateDidChange()``, not
        /// journaled) and no transaction was journaled: waiters must still be woken. The library's last
        /// journal sequence.
        let clientStateSequence: Int64?
        /// The journaled transaction's records for the delivery rounds, published once it is committed (see
        /// ``JournalHandOff``); nil when nothing was journaled or the hand-off doesn't hold that many records.
        let handOff: JournalHandOff.Entry?
    }

    private func runChangeBlock<Result>(
        _ db: any SQLConnection, author: String, _ changes: () throws -> Result
    ) throws -> (value: Result, committed: CommittedWrite) {
        let session = ChangeSession(db: db, library: self, author: author)
        let value: Result
        do {
            value = try ChangeSession.$current.withValue(session) { try changes() }
        } catch {
            try session.close()  // A request used outside its block outranks the block's own error.
            throw error
        }
        try session.close()
        let transaction = try session.finish()
        if let transaction {
            try applyRetentionIfDue(db, sequence: transaction.sequence)
        }
        var handOff = session.handOffEntry
        // On SQLite, the floor after the retention, for rounds read from memory (JournalHandOff.memoryRound);
        // unknown should it fail to read: the commit doesn't depend on it, only those rounds.
        if handOff != nil, db.sqliteDatabase != nil { handOff?.floor = try? journal.floorToken(db).sequence }
        let committed = CommittedWrite(
            transaction: transaction, releasedOriginals: session.releasedOriginals,
            clientStateSequence: transaction == nil && session.clientStateChanged
                ? try ChangeJournal.lastSequence(db) : nil,
            handOff: handOff)
        if committed.transaction != nil || committed.clientStateSequence != nil { try notifier.willCommit(in: db) }
        return (value, committed)
    }

    /// SQLite only: the wal-index region and its header read inside the write transaction, where the write
    /// lock (`BEGIN IMMEDIATE`) keeps any other commit out until this one's.
    private static func walIndexAtWriteLock(_ db: any SQLConnection) -> (region: UnsafeRawPointer, before: WALIndexHeader)? {
        guard let connection = db.sqliteDatabase?.sqliteConnection, let region = WALIndexHeader.region(of: connection),
            let before = WALIndexHeader.read(region)
        else { return nil }
        return (region, before)
    }

    /// The header a commit left, read once it returned: the commit's own only when exactly one commit
    /// (this one) came after `before`, read under the write lock; nil when another followed it already.
    private static func headerOfOwnCommit(region: UnsafeRawPointer, before: WALIndexHeader) -> WALIndexHeader? {
        guard let after = WALIndexHeader.read(region), after.changeCounter == before.changeCounter &+ 1 else { return nil }
        return after
    }

    private func notifyCommit(_ committed: CommittedWrite) {
        if let transaction = committed.transaction {
            notifier.didCommit(sequence: transaction.sequence)
        } else if let sequence = committed.clientStateSequence {
            notifier.didCommit(sequence: sequence)
        }
    }

    private func removeReleasedOriginals(_ committed: CommittedWrite) {
        if !committed.releasedOriginals.isEmpty {
            removeOriginalsIfUnreferenced(committed.releasedOriginals)
        }
    }

    /// Removes stored originals no asset refers to any more. The check and the removal run inside a write
    /// transaction, so no concurrent import can start referring to a file being removed.
    private func removeOriginalsIfUnreferenced(_ hashes: Set<String>) {
        try? storage.write { db in
            for hash in hashes {
                let referenced = try db.fetchValue(
                    Bool.self, sql: """
                        SELECT EXISTS (SELECT 1 FROM asset WHERE contentHash = ? AND storage = 0)
                            OR EXISTS (SELECT 1 FROM asset WHERE adjustedContentHash = ?)
                        """, arguments: [hash, hash]) ?? true
                if !referenced { originalsStore.remove(hash: hash) }
            }
        }
    }

    /// Removes the files of `originals/` that no asset refers to: what a crash between writing a file and
    /// committing its asset (or between committing a deletion and removing the file) can leave behind.
    ///
    /// - Returns: the number of files removed.
    /// - Complexity: O(*n*) in the number of stored files.
    @discardableResult
    public func removeUnreferencedOriginals() throws(PhotoLibraryError) -> Int {
        do {
            return try storage.write { db in
                let referenced = Set(try db.fetchValues(String.self, sql: """
                    SELECT contentHash FROM asset WHERE storage = 0 AND contentHash IS NOT NULL
                    UNION SELECT adjustedContentHash FROM asset WHERE adjustedContentHash IS NOT NULL
                    """))
                var removed = 0
                let fileManager = FileManager.default
                for prefix in (try? fileManager.contentsOfDirectory(atPath: originalsStore.directory.path)) ?? [] {
                    let folder = originalsStore.directory.appending(path: prefix)
                    if prefix == ".incoming" {
                        for name in (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? [] {
                            try? fileManager.removeItem(at: folder.appending(path: name))
                            removed += 1
                        }
                        continue
                    }
                    for name in (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? [] where !referenced.contains(name) {
                        try? fileManager.removeItem(at: folder.appending(path: name))
                        removed += 1
                    }
                }
                return removed
            }
        } catch {
            throw Self.map(error, path: databasePath)
        }
    }
}

/// Hashing files for the library, with its error type.
enum ContentHashing {
    static func hashFile(atPath path: String) throws(PhotoLibraryError) -> (hash: String, size: Int64) {
        do {
            let result = try ContentHash.ofFile(atPath: path)
            return (result.hash.description, result.byteCount)
        } catch {
            throw .fileUnreadable(path: path, reason: String(cString: strerror(error.errno)))
        }
    }
}

/// A best guess of a file's type from its name, for files the library imports itself. A client that reads
/// the content knows better and sets the type explicitly.
struct UniformType {
    let identifier: String?
    let mediaType: AssetMediaType

    static func guess(forFileName name: String) -> UniformType {
        switch pathExtension(of: name) {
        case "jpg", "jpeg", "jpe": return UniformType(identifier: "public.jpeg", mediaType: .image)
        case "png": return UniformType(identifier: "public.png", mediaType: .image)
        case "heic": return UniformType(identifier: "public.heic", mediaType: .image)
        case "heif": return UniformType(identifier: "public.heif", mediaType: .image)
        case "avif": return UniformType(identifier: "public.avif", mediaType: .image)
        case "gif": return UniformType(identifier: "com.compuserve.gif", mediaType: .image)
        case "webp": return UniformType(identifier: "org.webmproject.webp", mediaType: .image)
        case "tif", "tiff": return UniformType(identifier: "public.tiff", mediaType: .image)
        case "dng": return UniformType(identifier: "com.adobe.raw-image", mediaType: .image)
        case "cr2", "cr3", "nef", "arw", "orf", "rw2", "raf", "pef":
            return UniformType(identifier: "public.camera-raw-image", mediaType: .image)
        case "mp4": return UniformType(identifier: "public.mpeg-4", mediaType: .video)
        case "mov": return UniformType(identifier: "com.apple.quicktime-movie", mediaType: .video)
        case "m4v": return UniformType(identifier: "com.apple.m4v-video", mediaType: .video)
        case "m4a": return UniformType(identifier: "com.apple.m4a-audio", mediaType: .audio)
        case "mp3": return UniformType(identifier: "public.mp3", mediaType: .audio)
        case "wav": return UniformType(identifier: "com.microsoft.waveform-audio", mediaType: .audio)
        default: return UniformType(identifier: nil, mediaType: .unknown)
        }
    }

    /// The file name's extension in lowercase when it is ASCII, else "": what `NSString.pathExtension`
    /// finds (after the last dot, unless that dot starts the name), without bridging a string per file. (An
    /// extension that is not ASCII matches none of ours, lowercased or not.)
    static func pathExtension(of name: String) -> String {
        let utf8 = name.utf8
        guard let dot = name.lastUTF8Index(of: UInt8(ascii: ".")), dot != utf8.startIndex else { return "" }
        var bytes: [UInt8] = []
        for byte in utf8[utf8.index(after: dot)...] {
            guard byte < 0x80 else { return "" }
            bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
