// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "photosync",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "PhotoLibrary", targets: ["PhotoLibrary"]),
        .library(name: "IndexDiff", targets: ["IndexDiff"]),
        .library(name: "ContentHash", targets: ["ContentHash"]),
        .library(name: "FetchPredicate", targets: ["FetchPredicate"]),
        .library(name: "MediaProbe", targets: ["MediaProbe"]),
        .library(name: "FolderWatch", targets: ["FolderWatch"]),
        .library(name: "SyncWorker", targets: ["SyncWorker"]),
        .library(name: "PhotoImaging", targets: ["PhotoImaging"]),
        .library(name: "PostgresStore", targets: ["PostgresStore"]),
        .library(name: "PhotosyncServer", targets: ["PhotosyncServer"]),
        .executable(name: "photosync", targets: ["photosync"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The HTTP API (PhotosyncServer) and its tests.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // System libraries (Debian packages), each behind its own C module.
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        .systemLibrary(
            name: "CExif",
            pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]
        ),
        .systemLibrary(
            name: "CExpat",
            pkgConfig: "expat",
            providers: [.apt(["libexpat1-dev"])]
        ),
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        // libvips: its headers are in /usr/include/vips; pkg-config's "vips" entry would add -pthread, which SwiftPM
        // drops with a warning on every build, so the flags come from GObject's entry and -lvips from CImagingGlue.
        .systemLibrary(name: "CVips", pkgConfig: "gobject-2.0", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(
            name: "CAVCodec",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev"])]
        ),
        // Non-variadic C glue over libvips and FFmpeg for PhotoImaging (no codec of its own).
        .target(
            name: "CImagingGlue",
            dependencies: ["CVips", "CAVCodec", "CExif"],
            linkerSettings: [
                .linkedLibrary("vips"), .linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"),
                .linkedLibrary("avutil"),
            ]
        ),

        // Layer 0: leaf modules with no knowledge of the library.
        .target(name: "ContentHash", dependencies: ["CXXHash"], swiftSettings: strict),
        .target(name: "IndexDiff", swiftSettings: strict),
        .target(
            name: "FetchPredicate",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict
        ),
        .target(name: "MediaProbe", dependencies: ["CExif", "CExpat", "CHeif", "ContentHash"], swiftSettings: strict),
        // FolderWatch: recursive inotify watching of a folder tree (Glibc only, no C shim).
        .target(name: "FolderWatch", swiftSettings: strict),

        // Layer 0: the storage boundary — the connection and engine protocols the library's SQL runs through,
        // and the SQLite engine (GRDB). PostgresStore is the other engine.
        .target(
            name: "LibraryStorage",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),

        // Layer 1: the embeddable photo library (store, model, fetching, changes, journal).
        .target(
            name: "PhotoLibrary",
            dependencies: [
                "ContentHash",
                "IndexDiff",
                "FetchPredicate",
                "FolderWatch",
                "LibraryStorage",
                "PostgresStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API, for reads that hand column bytes over without making strings.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict,
            plugins: ["EmbedSchema"]
        ),

        // Layer 1: the PostgreSQL storage engine — connections, migrations (Schema/postgres/), the change journal.
        .target(
            name: "PostgresStore",
            dependencies: [
                "FetchPredicate",
                "LibraryStorage",
                // GRDB's value types (StatementArguments, DatabaseValue, Row): the storage boundary's vocabulary.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict,
            plugins: ["EmbedSchema"]
        ),

        // Layer 2: the sync worker — mirrors a watched folder into a library by content hash.
        .target(
            name: "SyncWorker",
            dependencies: [
                "PhotoLibrary",
                "MediaProbe",
                "ContentHash",
                "FolderWatch",
                .product(name: "Logging", package: "swift-log"),
                // Its own tables in the library's database (Schema/sync/), read and written through GRDB.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict,
            plugins: ["EmbedSchema"]
        ),

        // Layer 2: images of a library's assets — PhotoKit's image manager over libvips.
        .target(
            name: "PhotoImaging",
            dependencies: ["PhotoLibrary", "CImagingGlue"],
            swiftSettings: strict
        ),

        // Layer 3: the JSON shapes the command line (and the HTTP API) speak: Codable, one type per shape.
        .target(name: "PhotosyncWire", dependencies: ["PhotoLibrary", "SyncWorker"], swiftSettings: strict),

        // Layer 3: the HTTP API over a library (Hummingbird 2): the changes feed, queries, bytes and writes.
        // CServerIO: preadv2(RWF_NOWAIT), which Glibc's Swift module doesn't declare (it needs _GNU_SOURCE).
        .target(name: "CServerIO"),
        .target(
            name: "PhotosyncServer",
            dependencies: [
                "CServerIO",
                "PhotoLibrary",
                "PhotosyncWire",
                "SyncWorker",
                "MediaProbe",
                "PhotoImaging",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("openapi.json"), .embedInCode("Gallery/Static")],
            swiftSettings: strict
        ),

        // Layer 3: the command-line tool; a thin @main over a testable library.
        .target(
            name: "PhotosyncCommand",
            dependencies: [
                "PhotoLibrary",
                "MediaProbe",
                "SyncWorker",
                "PhotosyncWire",
                "PhotosyncServer",
                "FetchPredicate",
                "PhotoImaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "photosync",
            dependencies: ["PhotosyncCommand", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),

        // Build support: Schema/*.sql (the single source of truth) embedded into PhotoLibrary (Schema/sync/*.sql into
        // SyncWorker, Schema/postgres/*.sql into PostgresStore).
        .executableTarget(name: "SchemaEmbedder", path: "Sources/SchemaEmbedder"),
        .plugin(name: "EmbedSchema", capability: .buildTool(), dependencies: ["SchemaEmbedder"]),

        .testTarget(
            name: "PhotosyncCommandTests",
            dependencies: [
                "photosync", "PhotosyncCommand", "PhotosyncWire", "PhotoLibrary", "SyncWorker", "SchemaEmbedder", "SeededRandom",
                "PostgresTestSupport",
            ],
            exclude: ["Golden"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SyncWorkerTests",
            // photosync: the built daemon, run as a second mirror writer.
            dependencies: [
                "SyncWorker", "PhotoLibrary", "MediaProbe", "SeededRandom", "LibraryTestSupport", "photosync",
                // A private PostgreSQL cluster: the suites run on both engines.
                "PostgresTestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ContentHashTests", dependencies: ["ContentHash", "CXXHash", "SeededRandom"], swiftSettings: strict),
        .testTarget(name: "IndexDiffTests", dependencies: ["IndexDiff", "SeededRandom"], swiftSettings: strict),
        .testTarget(
            name: "FetchPredicateTests",
            dependencies: [
                "FetchPredicate", "SeededRandom", "PostgresStore", "PostgresTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MediaProbeTests",
            dependencies: ["MediaProbe", "SeededRandom"],
            exclude: ["ProbeDriver"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        // A driver for callgrind measurements of the probe (not shipped): see its main.swift.
        .executableTarget(
            name: "ProbeDriver",
            dependencies: ["MediaProbe"],
            path: "Tests/MediaProbeTests/ProbeDriver",
            swiftSettings: strict
        ),
        // FolderWatch tests: real temporary folders, real inotify.
        .testTarget(name: "FolderWatchTests", dependencies: ["FolderWatch", "SeededRandom", "LibraryTestSupport"], swiftSettings: strict),
        .target(name: "SeededRandom", path: "Tests/SeededRandom", swiftSettings: strict),
        .testTarget(
            name: "PhotoImagingTests",
            dependencies: ["PhotoImaging", "PhotoLibrary", "SeededRandom"],
            exclude: ["make-fixtures.sh"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .target(
            name: "LibraryTestSupport",
            dependencies: ["PhotoLibrary", "SeededRandom"],
            path: "Tests/Support",
            exclude: ["LibraryWriter"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "LibraryWriter",
            dependencies: ["PhotoLibrary", "LibraryTestSupport"],
            path: "Tests/Support/LibraryWriter",
            swiftSettings: strict
        ),
        // A private PostgreSQL cluster (initdb + pg_ctl) for the tests of one process.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresSupport", swiftSettings: strict),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: [
                "PostgresStore", "PostgresTestSupport", "SeededRandom", "PhotoLibrary", "SyncWorker",
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // The storage boundary's contract, one suite over both engines: SQLite files in temporary directories and
        // a real PostgreSQL (the test cluster).
        .testTarget(
            name: "LibraryStorageTests",
            dependencies: [
                "LibraryStorage", "PostgresStore", "PostgresTestSupport", "SeededRandom",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PhotoLibraryTests",
            dependencies: [
                "PhotoLibrary", "ContentHash", "LibraryTestSupport", "LibraryWriter", "SeededRandom", "PostgresTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // The HTTP API against a live server on 127.0.0.1, with AsyncHTTPClient; other processes commit.
        .testTarget(
            name: "PhotosyncServerTests",
            dependencies: [
                "PhotosyncServer", "PhotosyncWire", "PhotoLibrary", "SyncWorker", "LibraryTestSupport", "LibraryWriter", "photosync",
                "SeededRandom", "PostgresTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["validate_responses.py"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
