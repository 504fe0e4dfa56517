// swift-tools-version:6.1
// Benchmarks live in their own package so that package-benchmark and its dependencies stay out of the
// main build. Run: `cd Benchmarks && swift package benchmark` (see README, "Benchmarks").
import PackageDescription

let package = Package(
    name: "photosync-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "photosync", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "LibraryFixtures",
            dependencies: [.product(name: "PhotoLibrary", package: "photosync")],
            path: "LibraryFixtures"
        ),
        .executableTarget(
            name: "LibraryBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PhotoLibrary", package: "photosync"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "LibraryFixtures",
            ],
            path: "LibraryBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The storage engines side by side (issue 15): SQLite and PostgreSQL in the same run.
        .executableTarget(
            name: "StorageBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PhotoLibrary", package: "photosync"),
                "LibraryFixtures",
                "PostgresFixtures",
            ],
            path: "StorageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A PostgreSQL server of the benchmarks' own (initdb + pg_ctl, kept between runs) and libraries on it.
        .target(
            name: "PostgresFixtures",
            dependencies: [
                .product(name: "PhotoLibrary", package: "photosync"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "LibraryFixtures",
            ],
            path: "PostgresFixtures"
        ),
        // Not a benchmark: a driver for callgrind (see LibraryProfile/main.swift).
        .executableTarget(
            name: "LibraryProfile",
            dependencies: [.product(name: "PhotoLibrary", package: "photosync"), "LibraryFixtures"],
            path: "LibraryProfile"
        ),
        .executableTarget(
            name: "DiffBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "IndexDiff", package: "photosync"),
                .product(name: "Collections", package: "swift-collections"),
            ],
            path: "DiffBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "SyncBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PhotoLibrary", package: "photosync"),
                .product(name: "SyncWorker", package: "photosync"),
                "SyncFixtures",
            ],
            path: "SyncBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ImagingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PhotoLibrary", package: "photosync"),
                .product(name: "PhotoImaging", package: "photosync"),
                "FixtureFolders",
            ],
            path: "ImagingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .target(
            name: "SyncFixtures",
            dependencies: [
                .product(name: "PhotoLibrary", package: "photosync"),
                .product(name: "SyncWorker", package: "photosync"),
                "FixtureFolders",
            ],
            path: "SyncFixtures"
        ),
        // The fixture folders' builder, shared by SyncFixtures and ImagingBenchmarks.
        .target(name: "FixtureFolders", path: "FixtureFolders"),
        // Not a benchmark: a driver for callgrind (see SyncProfile/main.swift).
        .executableTarget(
            name: "SyncProfile",
            dependencies: [
                .product(name: "PhotoLibrary", package: "photosync"),
                .product(name: "SyncWorker", package: "photosync"),
                "SyncFixtures",
            ],
            path: "SyncProfile"
        ),
        // The HTTP API under load (loopback): waiting clients and wrk against nginx; the server in a process of its own.
        .executableTarget(
            name: "ServerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PhotoLibrary", package: "photosync"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "ServerBenchmarkHost",
            ],
            path: "ServerBenchmarks",
            exclude: ["Host"],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ServerBenchmarkHost",
            dependencies: [
                .product(name: "PhotoLibrary", package: "photosync"),
                .product(name: "PhotosyncServer", package: "photosync"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "ServerBenchmarks/Host"
        ),
    ],
    swiftLanguageModes: [.v6]
)
