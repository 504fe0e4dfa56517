@_spi(Testing) import PhotoLibrary

extension TestLibrary {
    /// A new library whose SQLite connections offer their fast paths (`sqliteDatabase`), or not: then the
    /// library takes the paths every storage engine takes. The observation suites run both.
    init(paths: SQLitePaths) throws {
        var options = PhotoLibrary.Options()
        options.sqliteFastPaths = fastPaths
        try self.init(options: options)
    }
}
