

import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

extension PostgresStoreError {
    /// Maps an error from postgres-nio (or NIO) to a typed store error; other errors are returned as they are.
    ///
    /// Connection problems become ``connectionRefused(address:)``, ``authenticationFailed(user:message:)``,
    /// ``databaseDoesNotExist(_:)`` or ``connectionFailed(address:message:)``; server errors keep their
    /// SQLSTATE in ``server(sqlState:message:)``.
    static func map(_ error: any Error, _ configuration: PostgresConfiguration) -> any Error {
        if let error = error as? PostgresStoreError { return error }
        if let error = error as? PostgresTransactionError {
            let inner = error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError
            return inner.map { map($0, configuration) } ?? error
        }
        guard let error = error as? PSQLError else {
            return isRefused(error) ? PostgresStoreError.connectionRefused(address: configuration.address) : error
        }
        if let state = error.serverInfo?[.sqlState] {
            let message = error.serverInfo?[.message] ?? "\(error)"
            switch state {
            case "28P01", "28000": return PostgresStoreError.authenticationFailed(user: configuration.user, message: message)
            case "3D000": return PostgresStoreError.databaseDoesNotExist(configuration.database)
            default: return PostgresStoreError.server(sqlState: state, message: message)
            }
        }
        switch error.code {
        case .connectionError:
            if let underlying = error.underlying, isRefused(underlying) {
                return PostgresStoreError.connectionRefused(address: configuration.address)
            }
            return PostgresStoreError.connectionFailed(
                address: configuration.address, message: error.underlying.map { "\($0)" } ?? "\(error.code)")
        case .authMechanismRequiresPassword:
            return PostgresStoreError.authenticationFailed(user: configuration.user, message: "the server asks for a password")
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            return PostgresStoreError.connectionFailed(address: configuration.address, message: "\(error.code)")
        case .poolClosed:
            return PostgresStoreError.closed
        default:
            return error
        }
    }

    /// Whether an error says that nothing accepted the connection (`ECONNREFUSED`, or a missing socket file).
    private static func isRefused(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED || error.errnoCode == ENOENT }
        if let error = error as? NIOConnectionError {
            return !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { isRefused($0.error) }
        }
        return false
    }
}
