@_spi(Testing) import PhotoLibrary

/// Both settings of the SQLite fast paths: the suites of the reading side run with each, so that the paths
/// every storage engine takes (the fast paths off) are proven on SQLite too.
let fastPathSettings = [true, false]

extension PhotoLibrary.Options {
    /// The same options, with SQLite's fast paths on or off.
    func fastPaths(_ on: Bool) -> PhotoLibrary.Options {
        var options = self
        options.sqliteFastPaths = on
        return options
    }

    /// Default options with SQLite's fast paths on or off.
    static func fastPaths(_ on: Bool) -> PhotoLibrary.Options { PhotoLibrary.Options().fastPaths(on) }
}

extension TestLibrary {
    /// A library in a temporary directory whose connections take SQLite's fast paths or not.
    init(fastPaths: Bool) throws {
        try self.init(options: .fastPaths(fastPaths))
    }
}
