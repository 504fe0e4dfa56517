import Foundation

/// What can go wrong when opening or using a PostgreSQL store. Each case says what to do about it.
public enum PostgresStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not a usable `postgres://` URL; `reason` says what is wrong with it.
    case invalidURL(String, reason: String)
    /// Nothing accepted a connection at the address (no server, wrong port, firewall).
    case connectionRefused(address: String)
    /// The server refused the user name or password.
    case authenticationFailed(user: String, message: String)
    /// The database named in the URL does not exist on the server.
    case databaseDoesNotExist(String)
    /// The connection could not be made or was lost, for another reason than the ones above.
    case connectionFailed(address: String, message: String)
    /// The database's schema is newer than this build knows (a newer photosync migrated it).
    case schemaTooNew(found: Int, known: Int)
    /// A migration this build knows was changed after it was applied to this database.
    case migrationChanged(version: Int, name: String)
    /// The server's encoding is not UTF-8 (the store needs it for text and Unicode normalisation).
    case unsupportedServerEncoding(String)
    /// A change token older than the retained history; `floor` is the oldest sequence still valid.
    case changeTokenExpired(floor: Int64)
    /// A change token ahead of the history (a database restored from an older backup, say).
    case changeTokenAhead(sequence: Int64, head: Int64)
    /// The server reported an error for a statement; `sqlState` is PostgreSQL's code (e.g. `23505`).
    case server(sqlState: String, message: String)
    /// A statement the engine refuses before sending it (several statements with arguments, named
    /// arguments, a column type the storage boundary doesn't read); `reason` says what is wrong.
    case invalidStatement(sql: String, reason: String)
    /// The store was closed.
    case closed

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid PostgreSQL URL '\(url)': \(reason)"
        case .connectionRefused(let address): "connection refused by \(address): is the PostgreSQL server running?"
        case .authenticationFailed(let user, let message): "authentication failed for user '\(user)': \(message)"
        case .databaseDoesNotExist(let name): "database '\(name)' does not exist"
        case .connectionFailed(let address, let message): "cannot connect to \(address): \(message)"
        case .schemaTooNew(let found, let known):
            "the database's schema version \(found) is newer than this build knows (\(known)): use a newer photosync"
        case .migrationChanged(let version, let name):
            "migration \(version) (\(name)) differs from the one applied to this database"
        case .unsupportedServerEncoding(let encoding): "the server encoding is \(encoding); UTF8 is required"
        case .changeTokenExpired(let floor): "the change token has expired; the oldest valid sequence is \(floor)"
        case .changeTokenAhead(let sequence, let head):
            "the change token (\(sequence)) is ahead of this database's history (\(head))"
        case .server(let sqlState, let message): "PostgreSQL error \(sqlState): \(message)"
        case .invalidStatement(let sql, let reason): "invalid statement (\(reason)): \(sql)"
        case .closed: "the PostgreSQL store is closed"
        }
    }
}
