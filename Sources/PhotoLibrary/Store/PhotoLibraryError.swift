public import Foundation

/// Every error the library throws. Each case says what went wrong and carries what a caller needs to act.
///
/// ``code`` gives PhotoKit's `PHPhotosError` code where PhotoKit has one, so that code written against
/// PhotoKit's codes keeps working.
public enum PhotoLibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: Opening
    /// The path holds something that is not a photosync library (another program's file, a non-empty folder).
    case notALibrary(path: String, reason: String)
    /// The library's database is damaged or is not an SQLite database.
    case corruptLibrary(path: String, reason: String)
    /// The library was written by a newer photosync. It was left untouched.
    case schemaTooNew(found: Int, supported: Int)
    /// The library's storage can't be used: missing, unreadable, or read-only where writing was needed.
    case storageUnavailable(path: String, reason: String)
    /// A client's tables were migrated by a newer version of the client (``LibraryClientSchema``): this build of
    /// the client can't use them. Nothing was changed.
    case clientSchemaTooNew(client: String, found: Int, supported: Int)
    /// A client's tables are in a state its schema can't take over: some of the tables it adopts exist, others
    /// don't (``LibraryClientSchema/Adoption``). Nothing was changed.
    case clientSchemaConflict(client: String, reason: String)
    /// A client's series has no SQL for the library's storage engine (`engine`: "SQLite" or "PostgreSQL") in
    /// the migrations the library still needs (``ClientMigration/sql(for:)``). Nothing was changed.
    case clientSchemaUnsupportedEngine(client: String, engine: String, migrations: [Int])

    // MARK: Objects and change requests
    /// No object with this identifier exists (never did, or was deleted).
    case objectNotFound(localIdentifier: String)
    /// An index outside `0...count` (insertions) or `0..<count` (everything else).
    case indexOutOfRange(index: Int, count: Int)
    /// The asset is already a member of the album.
    case duplicateMembership(assetIdentifier: String, collectionIdentifier: String)
    /// The move would put a folder inside itself or one of its descendants.
    case cyclicCollectionList(localIdentifier: String, parentIdentifier: String)
    /// A request that does not apply to this object (e.g. adding assets to a smart album).
    case invalidRequest(String)
    /// A property value that can't be stored (a location off the globe, a negative size…).
    case invalidValue(property: String, reason: String)
    /// A change request used outside the change block it belongs to: kept after its block and used in another,
    /// or used from a task or thread the block started. The block it was used in fails with this error (and
    /// commits nothing); where no block is left to fail — a request made outside any block, or used after
    /// its block returned — the process traps naming it, as PhotoKit raises an exception.
    case notInChangeBlock
    /// A file given to the library could not be read.
    case fileUnreadable(path: String, reason: String)
    /// The storage is full; nothing was committed.
    case notEnoughSpace
    /// A list given to a diff holds the same identifier twice; `index` is its second occurrence.
    case duplicateIdentifier(index: Int, inBefore: Bool)
    /// A predicate or sort descriptor that doesn't parse or doesn't fit the object type; `position` is the
    /// character offset of the problem in the text form, when there is one.
    case invalidPredicate(message: String, position: Int?)

    // MARK: Persistent change history
    /// The token is older than the retained history. Carries the oldest token still valid.
    case persistentChangeTokenExpired(oldestValidToken: ChangeToken)
    /// The details of a change are no longer available.
    case persistentChangeDetailsUnavailable
    /// The token belongs to another library.
    case changeTokenFromAnotherLibrary(tokenLibrary: UUID, library: UUID)
    /// The token is ahead of this library: the library was likely restored from an older backup.
    case changeTokenAheadOfLibrary(tokenSequence: Int64, currentSequence: Int64)
    /// The bytes or string are not a change token.
    case undecodableChangeToken(reason: String)

    // MARK: Underlying
    /// A storage engine's error the library did not expect: SQLite's result code and message, or -1 and
    /// PostgreSQL's message (with its SQLSTATE).
    case database(code: Int32, message: String)

    /// PhotoKit's `PHPhotosError.Code` raw value where PhotoKit has one; otherwise a photosync code ≥ 9000.
    public var code: Int {
        switch self {
        case .persistentChangeTokenExpired: 3105
        case .persistentChangeDetailsUnavailable: 3210
        case .objectNotFound: 3201  // identifierNotFound
        case .notEnoughSpace: 3305
        case .fileUnreadable: 3302  // invalidResource
        case .duplicateIdentifier: 9006
        case .invalidRequest, .notInChangeBlock, .indexOutOfRange, .duplicateMembership,
            .cyclicCollectionList, .invalidValue:
            3300  // changeNotSupported
        case .notALibrary: 9001
        case .corruptLibrary: 9002
        case .schemaTooNew: 9003
        case .storageUnavailable: 9004
        case .invalidPredicate: 9005
        case .clientSchemaTooNew: 9007
        case .clientSchemaConflict: 9008
        case .clientSchemaUnsupportedEngine: 9009
        case .changeTokenFromAnotherLibrary: 9101
        case .changeTokenAheadOfLibrary: 9102
        case .undecodableChangeToken: 9103
        case .database: 9999
        }
    }

    /// Whether the error says that the history no longer reaches a stored change token, so that the only way
    /// forward is a full resync: ``PhotoLibrary/fetchCurrentState()``, then continue from its `changeToken`.
    ///
    /// True for ``persistentChangeTokenExpired(oldestValidToken:)`` (3105),
    /// ``changeTokenFromAnotherLibrary(tokenLibrary:library:)`` (9101),
    /// ``changeTokenAheadOfLibrary(tokenSequence:currentSequence:)`` (9102) and
    /// ``undecodableChangeToken(reason:)`` (9103); false for every other error, which a resync would not cure.
    ///
    /// Test it inside a plain `catch` rather than with a pattern: swiftc 6.3.1 crashes on
    /// `catch PhotoLibraryError.persistentChangeTokenExpired(let token)` (and on `catch let e as
    /// PhotoLibraryError`) in some async functions whose `do` body throws only this type:
    ///
    /// ```swift
    /// do throws(PhotoLibraryError) {
    ///     let changes = try library.fetchPersistentChanges(since: token)
    ///     // …
    /// } catch {
    ///     guard error.requiresResync else { throw error }
    ///     let state = try library.fetchCurrentState()
    /// }
    /// ```
    public var requiresResync: Bool {
        switch self {
        case .persistentChangeTokenExpired, .changeTokenFromAnotherLibrary, .changeTokenAheadOfLibrary,
            .undecodableChangeToken:
            true
        default:
            false
        }
    }

    public var description: String {
        switch self {
        case .notALibrary(let path, let reason): "\(path) is not a photosync library: \(reason)"
        case .corruptLibrary(let path, let reason): "the library at \(path) is damaged: \(reason)"
        case .schemaTooNew(let found, let supported):
            "the library was written by a newer photosync (schema \(found); this build knows up to \(supported)); it was left untouched"
        case .storageUnavailable(let path, let reason): "cannot use \(path): \(reason)"
        case .clientSchemaTooNew(let client, let found, let supported):
            "the tables of \(client) in this library were written by a newer \(client) (version \(found); this build knows up to \(supported)); they were left untouched"
        case .clientSchemaConflict(let client, let reason): "cannot attach \(client) to the library: \(reason); nothing was changed"
        case .clientSchemaUnsupportedEngine(let client, let engine, let migrations):
            "cannot attach \(client) to the library: its migration\(migrations.count == 1 ? "" : "s") \(migrations.map(String.init).joined(separator: ", ")) \(migrations.count == 1 ? "has" : "have") no SQL for \(engine), the library's storage engine; nothing was changed"
        case .objectNotFound(let id): "no object with identifier \(id)"
        case .indexOutOfRange(let index, let count): "index \(index) is out of range (count \(count))"
        case .duplicateMembership(let asset, let collection): "asset \(asset) is already in \(collection)"
        case .cyclicCollectionList(let id, let parent): "moving \(id) into \(parent) would make a cycle"
        case .invalidRequest(let why): "invalid change request: \(why)"
        case .invalidValue(let property, let reason): "invalid value for \(property): \(reason)"
        case .notInChangeBlock: "a change request was used outside its change block; make and use requests only inside performChanges, on the block's thread"
        case .fileUnreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .notEnoughSpace: "not enough space on the library's storage; nothing was committed"
        case .invalidPredicate(let message, _): message
        case .duplicateIdentifier(let index, let inBefore):
            "the \(inBefore ? "before" : "after") list holds an identifier twice (again at index \(index))"
        case .persistentChangeTokenExpired(let oldest):
            "the change token has expired: the history after it is no longer retained (oldest valid token: \(oldest))"
        case .persistentChangeDetailsUnavailable: "the details of this change are no longer available"
        case .changeTokenFromAnotherLibrary(let token, let library):
            "the change token belongs to library \(token), not to this library (\(library))"
        case .changeTokenAheadOfLibrary(let token, let current):
            "the change token (sequence \(token)) is ahead of this library (sequence \(current)); was it restored from a backup?"
        case .undecodableChangeToken(let reason): "not a change token: \(reason)"
        case .database(let code, let message): code == -1 ? "database error: \(message)" : "SQLite error \(code): \(message)"
        }
    }
}
