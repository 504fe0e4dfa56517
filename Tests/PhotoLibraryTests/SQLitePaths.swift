import Foundation
import Testing
@_spi(Testing) @testable import PhotoLibrary

/// The two ways a library's SQL runs on SQLite: with the SQLite fast paths (what a library does by default),
/// and through the paths every storage engine takes (`PhotoLibrary.Options.sqliteFastPaths` off) — what the
/// PostgreSQL engine runs. The change-request suites run on both.
enum SQLitePaths: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case fast
    case generic

    var testDescription: String { rawValue }

    /// Library options taking these paths.
    func options(_ base: PhotoLibrary.Options = PhotoLibrary.Options()) -> PhotoLibrary.Options {
        var options = base
        options.sqliteFastPaths = self == .fast
        return options
    }
}

extension TestLibrary {
    /// A library in a temporary directory whose SQL takes `paths`.
    init(paths: SQLitePaths, options: PhotoLibrary.Options = PhotoLibrary.Options()) throws {
        try self.init(options: paths.options(options))
    }
}
