// Fixture libraries shared by the library benchmarks and the profiling driver, built once through the public
// API and kept in /tmp between runs.
import Foundation
@_spi(Benchmarks) public import PhotoLibrary

/// Large fixture libraries are built once through the public API and kept in /tmp between runs.
public enum Fixtures {
    /// v3: libraries of schema 5 (a build without migration 5 refuses them, so they don't share v1's folder).
    /// `PHOTOSYNC_BENCHMARK_FIXTURES` names another folder (to profile an older build on its own fixtures).
    public static let root = URL(
        fileURLWithPath: ProcessInfo.processInfo.environment["PHOTOSYNC_BENCHMARK_FIXTURES"] ?? "/tmp/photosync-benchmarks-v3")

    /// A library of `count` assets with creation dates spread over ten years, in random order. Benchmarks
    /// that commit into it use their own copy (`name`), so that the others keep measuring the same library.
    public static func library(assets count: Int, name: String = "assets-v2") throws -> PhotoLibrary {
        try build("\(name)-\(count)") { library in
            var generator = SystemRandomNumberGenerator()
            let batch = 10_000
            for start in stride(from: 0, to: count, by: batch) {
                try library.performChangesAndWait(author: "fixture") {
                    for index in start..<min(count, start + batch) {
                        let hash = String(format: "%032x", index)
                        let request = AssetChangeRequest.creationRequestForAsset(
                            fromFileAt: URL(fileURLWithPath: "/fixture/\(index).jpg"),
                            options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1_000_000))
                        request.creationDate = Date(timeIntervalSince1970: 1_400_000_000 + Double.random(in: 0..<315_360_000, using: &generator))
                        request.creationTimeZoneOffset = 0
                        request.pixelWidth = 4032
                        request.pixelHeight = 3024
                    }
                }
            }
        }
    }

    /// A library whose journal holds `transactions` × 10 object changes.
    public static func history(transactions: Int) throws -> PhotoLibrary {
        try build("history-\(transactions)") { library in
            for transaction in 0..<transactions {
                try library.performChangesAndWait(author: "fixture") {
                    for index in 0..<10 {
                        let hash = String(format: "%024x%08x", transaction, index)
                        _ = AssetChangeRequest.creationRequestForAsset(
                            fromFileAt: URL(fileURLWithPath: "/fixture/\(hash).jpg"),
                            options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                    }
                }
            }
        }
    }

    private static func build(_ name: String, _ fill: (PhotoLibrary) throws -> Void) throws -> PhotoLibrary {
        let url = root.appending(path: name)
        let done = url.appending(path: ".complete")
        if !FileManager.default.fileExists(atPath: done.path) {
            try? FileManager.default.removeItem(at: url)
            var options = PhotoLibrary.Options(retention: RetentionPolicy(maximumAge: 10 * 365 * 86_400, maximumTransactions: 10_000_000))
            options.durableCommits = false
            let library = try PhotoLibrary(url: url, options: options)
            try fill(library)
            _ = FileManager.default.createFile(atPath: done.path, contents: nil)
        }
        return try PhotoLibrary(url: url, options: .init(retention: RetentionPolicy(maximumAge: 10 * 365 * 86_400, maximumTransactions: 10_000_000)))
    }
}

/// The workloads measured by both the benchmarks and the profiling driver (`LibraryProfile`), so that
/// instruction counts and times describe the same work.
public enum Workloads {
    /// Commits one transaction of 100 asset inserts (referenced files, one creation date each).
    public static func commit100Inserts(_ library: PhotoLibrary, counter: inout Int) throws {
        try commitInserts(100, into: library, counter: &counter)
    }

    /// Commits one transaction of `count` asset inserts (referenced files, one creation date each), numbered
    /// from `counter` on.
    public static func commitInserts(_ count: Int, into library: PhotoLibrary, counter: inout Int) throws {
        var next = counter
        try library.performChangesAndWait {
            for _ in 0..<count {
                next += 1
                let hash = String(format: "%032x", next)
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: URL(fileURLWithPath: "/bench/\(next).jpg"),
                    options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                request.creationDate = Date(timeIntervalSince1970: 1_600_000_000 + Double(next))
            }
        }
        counter = next
    }

    /// Commits one transaction updating 10 random assets of `result`: 5 new creation dates (moves) and 5
    /// favourites toggled (changes in place). Returns the assets as they were.
    @discardableResult
    public static func updateTenAssets(
        _ library: PhotoLibrary, of result: FetchResult<Asset>, using generator: inout some RandomNumberGenerator
    ) throws -> [Asset] {
        var picks: [Int] = []
        while picks.count < 10 {
            let pick = Int.random(in: 0..<result.count, using: &generator)
            if !picks.contains(pick) { picks.append(pick) }
        }
        let assets = picks.map { result[$0] }
        let dates = (0..<5).map { _ in Date(timeIntervalSince1970: 1_400_000_000 + Double.random(in: 0..<315_360_000, using: &generator)) }
        try library.performChangesAndWait(author: "benchmark") {
            for (index, asset) in assets.enumerated() {
                let request = AssetChangeRequest(for: asset)
                if index < 5 {
                    request.creationDate = dates[index]
                } else {
                    request.isFavorite.toggle()
                }
            }
        }
        return assets
    }
}

/// A seeded generator (SplitMix64), so that profiles of the same workload are comparable run to run.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
