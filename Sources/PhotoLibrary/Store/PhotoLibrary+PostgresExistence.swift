public import Foundation
import PostgresStore

extension PhotoLibrary {
    /// Whether the PostgreSQL database at `url` holds a library's tables, read without creating or changing
    /// anything (``init(postgres:directory:options:)`` creates them): what a tool checks before opening a
    /// library it must not create.
    ///
    /// - Throws: ``PhotoLibraryError/storageUnavailable(path:reason:)`` when the server can't be reached, the
    ///   database doesn't exist or the credentials are refused (the path never shows the password).
    public static func postgresLibraryExists(at url: URL) throws(PhotoLibraryError) -> Bool {
        do { return try PostgresStore.holdsSchema(url: url) } catch { throw map(error) }
    }
}
