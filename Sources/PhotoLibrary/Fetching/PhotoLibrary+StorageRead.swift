import LibraryStorage

extension PhotoLibrary {
    /// Runs a read on the library's storage engine (one snapshot of the committed data), mapping errors.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read; what `body` throws, mapped.
    func storageRead<T>(_ body: (any SQLConnection) throws -> T) throws(PhotoLibraryError) -> T {
        do { return try storage.read(body) } catch { throw Self.map(error, path: databasePath) }
    }
}
