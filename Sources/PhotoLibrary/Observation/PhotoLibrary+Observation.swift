extension PhotoLibrary {
    /// Registers an observer, held weakly: it receives every transaction committed from now on, by this
    /// process or another, in commit order, on one serial queue of the library.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read.
    public func register(_ observer: any PhotoLibraryChangeObserver) throws(PhotoLibraryError) {
        do { try observation.register(observer) } catch { throw Self.map(error, path: databasePath) }
    }

    /// Stops delivering changes to an observer.
    public func unregister(_ observer: any PhotoLibraryChangeObserver) {
        observation.unregister(observer)
    }

    /// The transactions committed from now on, as an async sequence; it ends when the library is released.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read.
    public func changes() throws(PhotoLibraryError) -> AsyncStream<Change> {
        do { return try observation.stream() } catch { throw Self.map(error, path: databasePath) }
    }
}
