// swift-tools-version:6.1
// The README's examples, one executable each: CI builds and runs them (scripts/test), and a test checks that
// the README quotes them exactly (Tests/PhotoLibraryTests/ReadmeExamplesTests.swift). Each makes its own
// temporary library and folder, and exits non-zero when what it shows doesn't happen.
import PackageDescription

let package = Package(
    name: "PhotosyncExamples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "photosync", path: "..")],
    targets: [
        .executableTarget(name: "Embedding", dependencies: [.product(name: "PhotoLibrary", package: "photosync")]),
        .executableTarget(name: "Observing", dependencies: [.product(name: "PhotoLibrary", package: "photosync")]),
        .executableTarget(name: "TypedPredicates", dependencies: [.product(name: "PhotoLibrary", package: "photosync")]),
        .executableTarget(
            name: "Images",
            dependencies: [
                .product(name: "PhotoLibrary", package: "photosync"), .product(name: "PhotoImaging", package: "photosync"),
            ]
        ),
        .executableTarget(
            name: "Mirroring",
            dependencies: [
                .product(name: "PhotoLibrary", package: "photosync"), .product(name: "SyncWorker", package: "photosync"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
