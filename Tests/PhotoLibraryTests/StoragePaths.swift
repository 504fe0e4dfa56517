import Foundation
import PostgresTestSupport
import Testing
@_spi(Testing) @testable import PhotoLibrary

/// The ways a library's SQL runs: on SQLite with its fast paths (what a library does by default), on SQLite
/// through the paths every storage engine takes (`PhotoLibrary.Options.sqliteFastPaths` off), and on
/// PostgreSQL (a new database of the test cluster; the cluster not starting fails the test).
enum StoragePaths: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case fast
    case generic
    case postgres

    /// The SQLite paths only: suites that open the library's file directly, or use the client API.
    static let sqlite: [StoragePaths] = [.fast, .generic]

    var testDescription: String { rawValue }

    /// Library options taking these paths.
    func options(_ base: PhotoLibrary.Options = PhotoLibrary.Options()) -> PhotoLibrary.Options {
        var options = base
        options.sqliteFastPaths = self == .fast
        return options
    }
}

extension TestLibrary {
    /// A library in a temporary directory (its database there, or in a new database of the test cluster)
    /// whose SQL takes `paths`.
    ///
    /// - Parameter databaseSettings: on PostgreSQL, the database's settings
    ///   (``PostgresCluster/makeDatabase(prefix:settings:)``).
    init(
        paths: StoragePaths, options: PhotoLibrary.Options = PhotoLibrary.Options(), databaseSettings: [String: String] = [:]
    ) throws {
        guard paths == .postgres else {
            try self.init(options: paths.options(options))
            return
        }
        let directory = TemporaryDirectory()
        let database = try PostgresCluster.shared().makeDatabase(prefix: "library", settings: databaseSettings)
        let library = try PhotoLibrary(
            postgres: database, directory: directory.url.appending(path: "Library.photosync"), options: options)
        self.init(directory: directory, library: library, postgres: database)
    }
}
