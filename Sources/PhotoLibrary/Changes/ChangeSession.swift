import Foundation
import GRDB
import LibraryStorage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The state of one change block: it lives on the writer's thread inside one write transaction of the
/// library's storage engine (``StorageEngine/write(_:)``).
///
/// Change requests made inside the block reach it through ``current``. Every object a request touches has
/// its state *before* the block captured on first touch, so that at the end the session can tell exactly
/// what changed (and nothing else), maintain the derived collections (smart albums, moments, year lists,
/// burst representatives, album dates and counts), and append the change journal — all inside the same
/// transaction as the change itself.
///
/// `@unchecked Sendable` — the invariant: the session's mutable state and its `db` are only ever touched by
/// the thread running the block, while the block is open (then, after ``close()``, by that same thread
/// finishing the commit). Requests can still *hold* a session after its block (kept in a variable, or
/// captured by a task started in the block, which also inherits the task-local ``current``), so every way
/// a request reaches the session goes through ``admitsCaller()``, which checks ``gate`` — a lock holding the
/// block's thread and whether the block is open — before anything else is read: ``perform(_:)``,
/// ``read(_:default:)``, ``admitted()``, ``isFailed``, ``clientWrites``, ``clientStateChanged``. A caller
/// that is not the block itself touches nothing: its misuse fails the open block it happens in
/// (``PhotoLibraryError/notInChangeBlock``), or traps when no block is left to fail. Tested by
/// `ChangeBlockSoundnessTests`.
final class ChangeSession: @unchecked Sendable {
    @TaskLocal static var current: ChangeSession?

    /// The write transaction's connection: every statement of the block goes through it.
    let db: any SQLConnection
    let library: PhotoLibrary
    let author: String
    let now: Double
    private(set) var firstError: PhotoLibraryError?

    /// Who may use the session: the thread running the block, while the block is open. Other threads read it
    /// (under the lock) to find out that they may not.
    private struct Gate {
        let owner: UInt
        var isOpen = true
        /// A request was used here from outside the block: the block fails with `notInChangeBlock`.
        var misused = false
    }

    private let gate: Mutex<Gate>

    /// Before images: nil for objects created in this block. Keys are row ids.
    var assetsBefore: [Int64: AssetRow?] = [:]
    var collectionsBefore: [Int64: AssetCollectionRow?] = [:]
    var listsBefore: [Int64: CollectionListRow?] = [:]
    /// Assets with property edits not yet written (written at the end of the block, in one pass).
    var pendingAssetRows: [Int64: AssetRow] = [:]
    var pendingAssetOrder: [Int64] = []
    /// Assets created in this block and not yet inserted: inserted with all their values in one statement
    /// when the block ends, or earlier when an album or folder operation needs them in the database.
    var unwrittenAssets: Set<Int64> = []
    /// The assets created in this block and not deleted since, written or not, by local identifier: found
    /// without a query when a later request of the block names one (its album, a client's row).
    var createdByIdentifier: [String: Int64] = [:]
    /// The rows of the assets this block wrote (inserted, or updated with its pending edits), as written. Until
    /// the block ends, nothing else changes an asset row — the block's other statements on `asset` delete a
    /// row (dropped from here) or come after ``finish()`` has read the rows back (moments) or make it read
    /// them again (bursts' representatives) — so these are what the database holds: ``finish()`` takes them
    /// rather than reading them back.
    var writtenAssetRows: [Int64: AssetRow] = [:]
    /// The moment of each day new assets fell on (found, or created by ``moment(forNewAsset:)``).
    private var momentsByDay: [String: Int64] = [:]
    /// The moments this block created for new assets, with their days: the block's end deletes those that
    /// end up empty (an asset deleted or re-dated later in the block).
    private(set) var momentsCreated: [Int64: String] = [:]
    /// Collections and lists whose members changed.
    var collectionMembershipChanged: Set<Int64> = []
    var listMembershipChanged: Set<Int64> = []
    /// Content hashes of copied originals that may have lost their last reference.
    var releasedOriginals: Set<String> = []
    /// The journaled transaction's records for the library's delivery rounds (``finish()`` makes it): the
    /// library publishes it once the engine has committed the block, and never when it rolls back.
    var handOffEntry: JournalHandOff.Entry?

    private var pendingClientWrites: [(any SQLConnection) throws -> Void] = []
    private var clientStateMarked = false

    /// Writes of the library's clients to their own tables (``LibraryTransaction/enqueue(_:)``), run when the
    /// block ends, once the assets they refer to are in the database. Bookkeeping: never journaled. Changing
    /// it from outside the block changes nothing (see ``admitsCaller()``).
    var clientWrites: [(any SQLConnection) throws -> Void] {
        get { pendingClientWrites }
        set { if admitsCaller() { pendingClientWrites = newValue } }
        _modify {
            if admitsCaller() {
                yield &pendingClientWrites
            } else {
                var discarded: [(any SQLConnection) throws -> Void] = []
                yield &discarded
            }
        }
    }

    /// Whether the block changes state a client waits for (``LibraryTransaction/clientStateDidChange()``):
    /// waiters, in this process and others, are then notified after the commit even when nothing is journaled.
    var clientStateChanged: Bool {
        get { clientStateMarked }
        set { if admitsCaller() { clientStateMarked = newValue } }
    }

    /// Opens a session for a block about to run on the calling thread.
    init(db: any SQLConnection, library: PhotoLibrary, author: String) {
        self.db = db
        self.library = library
        self.author = author
        self.now = Date().timeIntervalSince1970
        self.gate = Mutex(Gate(owner: Self.callingThread))
    }

    // MARK: The block's boundary

    static var callingThread: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }

    /// Whether the caller may use the session: it is the block itself (its thread, the block still open).
    ///
    /// Otherwise the caller is a request used outside its block, and nothing of the session may be read: the
    /// misuse fails this block when it is still open (another thread: a task started in it), else the open
    /// block the caller runs in (a request kept from an earlier block), else — no block left to fail — the
    /// process traps, naming ``PhotoLibraryError/notInChangeBlock``.
    func admitsCaller() -> Bool {
        let thread = Self.callingThread
        let open = gate.withLock { gate -> Bool? in
            if gate.isOpen && gate.owner == thread { return true }
            guard gate.isOpen else { return nil }
            gate.misused = true
            return false
        }
        if let open { return open }
        if let block = Self.current, block !== self, block.recordMisuse() { return false }
        Self.trapOutsideBlock()
    }

    /// Records a misuse when the block is still open; false when it has ended.
    private func recordMisuse() -> Bool {
        gate.withLock { gate in
            if gate.isOpen { gate.misused = true }
            return gate.isOpen
        }
    }

    /// The session of the block the caller runs in, when it may use it (see ``admitsCaller()``); nil (after
    /// reporting the misuse) otherwise. Where requests are made.
    static func admitted() -> ChangeSession? {
        guard let session = current else { trapOutsideBlock() }
        return session.admitsCaller() ? session : nil
    }

    /// A request made or used where no change block can fail: after its block returned, or outside any block.
    /// PhotoKit raises an exception here; so does this library.
    static func trapOutsideBlock() -> Never {
        fatalError(
            "PhotoLibraryError.notInChangeBlock: \(PhotoLibraryError.notInChangeBlock) (this one was made outside any "
                + "block, or used after its block returned: no block is left to fail)")
    }

    /// Ends the block: from now on no request reaches the session (the commit goes on, on this thread).
    ///
    /// - Throws: ``PhotoLibraryError/notInChangeBlock`` when a request was used from outside the block while
    ///   it ran, or a request of another block was used in it.
    func close() throws(PhotoLibraryError) {
        let misused = gate.withLock { gate in
            gate.isOpen = false
            return gate.misused
        }
        if misused { throw .notInChangeBlock }
    }

    // MARK: Errors

    /// Records the block's first error; every later operation is skipped and the block fails with it.
    func fail(_ error: PhotoLibraryError) {
        if firstError == nil { firstError = error }
    }

    /// Whether the block has failed — or the caller may not use it (see ``admitsCaller()``).
    var isFailed: Bool { !admitsCaller() || firstError != nil }

    /// Runs a step, recording its error. Steps after a failure, and steps of a caller outside the block (see
    /// ``admitsCaller()``), are skipped.
    func perform(_ step: () throws -> Void) {
        guard admitsCaller(), firstError == nil else { return }
        do { try step() } catch { fail(PhotoLibrary.map(error, path: library.databasePath)) }
    }

    /// Reads a value for a request's getter. A read that fails fails the block with its typed error, and the
    /// getter returns `fallback`, like every read of a failed block or of a caller outside it.
    func read<T>(_ body: () throws -> T?, default fallback: T) -> T {
        guard admitsCaller(), firstError == nil else { return fallback }
        do { return try body() ?? fallback } catch {
            fail(PhotoLibrary.map(error, path: library.databasePath))
            return fallback
        }
    }

    // MARK: Touching objects

    func touchAsset(_ id: Int64) throws {
        guard assetsBefore.index(forKey: id) == nil else { return }
        guard let row = try assetRow(id: id) else {
            throw PhotoLibraryError.objectNotFound(localIdentifier: "asset #\(id)")
        }
        assetsBefore[id] = .some(row)
    }

    func touchCollection(_ id: Int64) throws {
        guard collectionsBefore.index(forKey: id) == nil else { return }
        guard let row = try collectionRow(id: id) else {
            throw PhotoLibraryError.objectNotFound(localIdentifier: "collection #\(id)")
        }
        collectionsBefore[id] = .some(row)
    }

    func touchList(_ id: Int64) throws {
        guard listsBefore.index(forKey: id) == nil else { return }
        guard let row = try listRow(id: id) else {
            throw PhotoLibraryError.objectNotFound(localIdentifier: "collection list #\(id)")
        }
        listsBefore[id] = .some(row)
    }

    // MARK: Resolving identifiers

    func assetID(for localIdentifier: String) throws -> Int64 {
        if let id = createdByIdentifier[localIdentifier] { return id }
        guard let id = try db.fetchRepeatedValue(
            Int64.self, sql: "SELECT id FROM asset WHERE localIdentifier = ?",
            arguments: [localIdentifier])
        else {
            throw PhotoLibraryError.objectNotFound(localIdentifier: localIdentifier)
        }
        return id
    }

    func collectionRow(for localIdentifier: String) throws -> AssetCollectionRow {
        guard let row = try collectionRowIfAny(localIdentifier: localIdentifier) else {
            throw PhotoLibraryError.objectNotFound(localIdentifier: localIdentifier)
        }
        return row
    }

    func listRow(for localIdentifier: String) throws -> CollectionListRow {
        guard let row = try listRowIfAny(localIdentifier: localIdentifier) else {
            throw PhotoLibraryError.objectNotFound(localIdentifier: localIdentifier)
        }
        return row
    }

    // MARK: Inserting

    private var nextIDs: [String: Int64] = [:]

    /// A new row id for `table` (`asset`, `asset_collection` or `collection_list`), never used before, so
    /// that ids are never reused: final from the request that creates the object (its placeholder's
    /// identifier resolves to it before the row is written).
    ///
    /// On SQLite, one past the largest ever used — AUTOINCREMENT keeps it in `sqlite_sequence`, and writing a
    /// row with an explicit id moves it on — counted on in memory after the first: the write transaction holds
    /// the only writer. On PostgreSQL, the next value of the table's identity sequence (the column is
    /// `GENERATED BY DEFAULT`, so the row is then written with it): a sequence never gives a value twice, even
    /// to transactions that roll back.
    func allocateID(_ table: String) throws -> Int64 {
        switch db.dialect {
        case .sqlite:
            // The table's name hashed once per id (a scan allocates one per file).
            if let index = nextIDs.index(forKey: table) {
                defer { nextIDs.values[index] += 1 }
                return nextIDs.values[index]
            }
            let sequence = try db.fetchValue(
                Int64.self, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table]) ?? 0
            let maximum = try db.fetchValue(Int64.self, sql: "SELECT max(id) FROM \(table)") ?? 0
            let next = Swift.max(sequence, maximum) + 1
            nextIDs[table] = next + 1
            return next
        case .postgres:
            guard let next = try db.fetchRepeatedValue(
                Int64.self, sql: "SELECT nextval(pg_get_serial_sequence(?, 'id'))",
                arguments: [table])
            else {
                throw PhotoLibraryError.database(code: -1, message: "\(table) has no id sequence")
            }
            return next
        }
    }

    /// Creates an asset. Its row is written later (see ``unwrittenAssets``); its id is final now.
    func insertAsset(_ row: inout AssetRow) throws {
        row.id = try allocateID("asset")
        assetsBefore[row.id] = .some(nil)
        pendingAssetRows[row.id] = row
        pendingAssetOrder.append(row.id)
        unwrittenAssets.insert(row.id)
        createdByIdentifier[row.localIdentifier] = row.id
    }

    /// Inserts the assets created so far, in the order they were created, so that rows referring to them can
    /// be written: their moments first (created for a day that has none), then their rows, a few statements
    /// of many rows each.
    func writeCreatedAssets() throws {
        guard !unwrittenAssets.isEmpty else { return }
        var rows: [AssetRow] = []
        rows.reserveCapacity(unwrittenAssets.count)
        for id in pendingAssetOrder where unwrittenAssets.contains(id) {
            guard var row = pendingAssetRows.removeValue(forKey: id) else { continue }
            try validate(row)
            if row.burstIdentifier == nil { row.representsBurst = false }
            if row.momentId == nil { row.momentId = try moment(forNewAsset: row) }
            rows.append(row)
        }
        try AssetRow.insert(rows, into: db)
        for row in rows { writtenAssetRows[row.id] = row }
        pendingAssetOrder.removeAll { pendingAssetRows[$0] == nil }
        unwrittenAssets.removeAll()
    }

    /// The moment a new asset belongs in, created when its day has none yet, so that the asset's row is written
    /// with it rather than updated at the block's end (which keeps the moments' aggregates: see
    /// `maintainMoments`).
    private func moment(forNewAsset row: AssetRow) throws -> Int64 {
        try moment(forDay: MomentDay.key(for: row, timeZone: library.momentTimeZone))
    }

    /// The moment of `day` (a ``MomentDay`` key), created (empty) when there is none. The block's end fills in
    /// its aggregates, or deletes it if no asset ends up in it.
    func moment(forDay day: String) throws -> Int64 {
        if let known = momentsByDay[day] { return known }
        if let found = try db.fetchRepeatedValue(
            Int64.self, sql: "SELECT id FROM asset_collection WHERE momentDay = ?",
            arguments: [day])
        {
            momentsByDay[day] = found
            return found
        }
        var created = AssetCollectionRow(
            id: 0, localIdentifier: LocalIdentifier.make(.assetCollection), type: AssetCollectionType.moment.rawValue,
            subtype: AssetCollectionSubtype.any.rawValue, title: MomentDay.title(for: day), momentDay: day, createdAt: now)
        try insertCollection(&created)
        momentsByDay[day] = created.id
        momentsCreated[created.id] = day
        return created.id
    }

    func insertCollection(_ row: inout AssetCollectionRow) throws {
        row.id = try allocateID("asset_collection")
        try row.insert(into: db)
        collectionsBefore[row.id] = .some(nil)
    }

    func insertList(_ row: inout CollectionListRow) throws {
        row.id = try allocateID("collection_list")
        try row.insert(into: db)
        listsBefore[row.id] = .some(nil)
    }

    // MARK: Assets

    /// Edits an asset's pending state; the edit is written at the end of the block.
    ///
    /// The pending row is edited in place (looked up by index, not copied out and back: a request setting a
    /// new asset's dozen properties edits it a dozen times).
    func editAsset(_ id: Int64, _ edit: (inout AssetRow) -> Void) throws {
        if let index = pendingAssetRows.index(forKey: id) {
            edit(&pendingAssetRows.values[index])
            return
        }
        try touchAsset(id)
        guard var current = try assetRow(id: id) else {
            throw PhotoLibraryError.objectNotFound(localIdentifier: "asset #\(id)")
        }
        edit(&current)
        pendingAssetRows[id] = current
        pendingAssetOrder.append(id)
    }

    func currentAssetRow(_ id: Int64) throws -> AssetRow? {
        if let pending = pendingAssetRows[id] { return pending }
        return try assetRow(id: id)
    }

    func deleteAsset(_ id: Int64) throws {
        if unwrittenAssets.remove(id) != nil, let row = pendingAssetRows.removeValue(forKey: id) {
            // Created and deleted in the same block: it never reaches the database.
            createdByIdentifier.removeValue(forKey: row.localIdentifier)
            if row.storage == AssetStorage.copied.rawValue, let hash = row.contentHash { releasedOriginals.insert(hash) }
            return
        }
        try touchAsset(id)
        let albums = try db.fetchValues(Int64.self, sql: "SELECT albumId FROM album_asset WHERE assetId = ?", arguments: [id])
        for album in albums {
            try touchCollection(album)
            collectionMembershipChanged.insert(album)
        }
        // Keep the album positions dense.
        for album in albums {
            try removeMembers(ofAlbum: album, where: { $0 == id })
        }
        if case .some(.some(let before)) = assetsBefore[id], before.storage == AssetStorage.copied.rawValue,
            let hash = before.contentHash
        {
            releasedOriginals.insert(hash)
        }
        // A rendered edit is in the store too (Schema/0004_adjustments.sql).
        if case .some(.some(let before)) = assetsBefore[id], let edit = before.adjustedContentHash {
            releasedOriginals.insert(edit)
        }
        if let edit = pendingAssetRows[id]?.adjustedContentHash { releasedOriginals.insert(edit) }
        if let pending = pendingAssetRows.removeValue(forKey: id), pending.storage == AssetStorage.copied.rawValue,
            let hash = pending.contentHash
        {
            releasedOriginals.insert(hash)
        }
        if let written = writtenAssetRows.removeValue(forKey: id) { createdByIdentifier[written.localIdentifier] = nil }
        try db.execute(sql: "DELETE FROM asset WHERE id = ?", arguments: [id])
    }

    // MARK: Album membership (dense positions 0..<n)

    func albumMembers(_ album: Int64) throws -> [Int64] {
        try db.fetchValues(
            Int64.self, sql: "SELECT assetId FROM album_asset WHERE albumId = ? ORDER BY position", arguments: [album],
            cached: true)
    }

    /// Replaces the album's ordered members, rewriting only the suffix that changed.
    func setAlbumMembers(_ album: Int64, from old: [Int64], to new: [Int64]) throws {
        try writeCreatedAssets()
        var first = 0
        while first < old.count && first < new.count && old[first] == new[first] { first += 1 }
        if first == old.count && first == new.count { return }
        try touchCollection(album)
        collectionMembershipChanged.insert(album)
        try db.executeRepeated(sql: "DELETE FROM album_asset WHERE albumId = ? AND position >= ?", arguments: [album, first])
        try AlbumMembers.insert(album: album, members: new[first...], into: db)
    }

    func removeMembers(ofAlbum album: Int64, where shouldRemove: (Int64) -> Bool) throws {
        let old = try albumMembers(album)
        try setAlbumMembers(album, from: old, to: old.filter { !shouldRemove($0) })
    }

    // MARK: Folder children (dense positions 0..<n)

    enum Child: Hashable {
        case collection(Int64)
        case list(Int64)
    }

    func children(ofList list: Int64) throws -> [Child] {
        var children: [Child] = []
        try db.forEachRow(
            sql: "SELECT childCollectionId, childListId FROM collection_list_child WHERE listId = ? ORDER BY position",
            arguments: [list], cached: false
        ) { columns in
            children.append(columns.isNull(0) ? .list(columns.int64(1)) : .collection(columns.int64(0)))
            return true
        }
        return children
    }

    func setChildren(ofList list: Int64, from old: [Child], to new: [Child]) throws {
        var first = 0
        while first < old.count && first < new.count && old[first] == new[first] { first += 1 }
        if first == old.count && first == new.count { return }
        try touchList(list)
        listMembershipChanged.insert(list)
        try db.execute(
            sql: "DELETE FROM collection_list_child WHERE listId = ? AND position >= ?", arguments: [list, first])
        for position in first..<new.count {
            switch new[position] {
            case .collection(let id):
                try db.execute(
                    sql: "INSERT INTO collection_list_child (listId, position, childCollectionId) VALUES (?, ?, ?)",
                    arguments: [list, position, id])
            case .list(let id):
                try db.execute(
                    sql: "INSERT INTO collection_list_child (listId, position, childListId) VALUES (?, ?, ?)",
                    arguments: [list, position, id])
            }
        }
    }

    /// The folder holding a child, if any.
    func parent(of child: Child) throws -> Int64? {
        switch child {
        case .collection(let id):
            try db.fetchValue(
                Int64.self, sql: "SELECT listId FROM collection_list_child WHERE childCollectionId = ?", arguments: [id])
        case .list(let id):
            try db.fetchValue(Int64.self, sql: "SELECT listId FROM collection_list_child WHERE childListId = ?", arguments: [id])
        }
    }

    /// Detaches a child from its folder, if it has one.
    func detach(_ child: Child) throws {
        guard let parent = try parent(of: child) else { return }
        let old = try children(ofList: parent)
        try setChildren(ofList: parent, from: old, to: old.filter { $0 != child })
    }
}
