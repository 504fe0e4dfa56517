import Foundation
import PhotoImaging
import PhotoLibrary
import Testing

extension ImagingTests {
    @Suite("The rendition cache")
    struct CacheTests {
        static let options = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .jpeg(quality: 80))

        @Test("a second request is served from the cache, identical, without a render")
        func reuse() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("camera.jpg")
            let first = try await fixture.final(asset, size: PixelSize(square: 200), options: Self.options)
            #expect(first.source == .rendered && fixture.manager.renderCount == 1)
            let second = try await fixture.final(asset, size: PixelSize(square: 200), options: Self.options)
            #expect(second.source == .renditionCache && second.content == first.content && second.size == first.size)
            #expect(fixture.manager.renderCount == 1)
            #expect(fixture.renditionFiles().count == 1)
        }

        @Test("a renamed file reuses its renditions; an edited one doesn't")
        func renameAndEdit() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("camera.jpg")
            _ = try await fixture.final(asset, size: PixelSize(square: 200), options: Self.options)
            let old = fixture.filesFolder.appending(path: "camera.jpg")
            let renamed = fixture.filesFolder.appending(path: "renamed.jpg")
            try FileManager.default.moveItem(at: old, to: renamed)
            try fixture.library.performChangesAndWait {
                AssetChangeRequest(for: asset).setReferencedFilePath(renamed.path)
            }
            let afterRename = try await fixture.final(asset, size: PixelSize(square: 200), options: Self.options)
            #expect(afterRename.source == .renditionCache && fixture.manager.renderCount == 1)

            // An edit: other bytes at the same path.
            try FileManager.default.removeItem(at: renamed)
            try FileManager.default.copyItem(at: ImagingFixture.fixture("orient-1.jpg"), to: renamed)
            try fixture.library.performChangesAndWait {
                AssetChangeRequest(for: asset).replaceContent(
                    withFileAt: renamed, options: AssetCreationOptions(storage: .referenced))
            }
            let afterEdit = try await fixture.final(asset, size: PixelSize(square: 200), options: Self.options)
            #expect(afterEdit.source == .rendered && fixture.manager.renderCount == 2)
            #expect(afterEdit.size == PixelSize(width: 96, height: 64))
        }

        @Test("a file rewritten behind the library's back is rendered, but not cached under its old hash")
        func rewrittenFile() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            let file = fixture.filesFolder.appending(path: "pattern.png")
            try FileManager.default.removeItem(at: file)
            try FileManager.default.copyItem(at: ImagingFixture.fixture("camera.jpg"), to: file)
            let result = try await fixture.final(asset, size: PixelSize(square: 50), options: Self.options)
            #expect(result.size == PixelSize(width: 33, height: 50))  // camera.jpg, turned
            #expect(fixture.renditionFiles().isEmpty)
        }

        @Test("deleting the cache loses nothing: the next request renders again")
        func deleteCache() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            let first = try await fixture.final(asset, size: PixelSize(square: 50), options: Self.options)
            try FileManager.default.removeItem(at: fixture.renditions)
            let second = try await fixture.final(asset, size: PixelSize(square: 50), options: Self.options)
            #expect(second.source == .rendered && second.content == first.content)
        }

        @Test("past its budget the cache evicts the least recently used renditions")
        func eviction() async throws {
            let fixture = try ImagingFixture(configuration: ImageManager.Configuration(renditionCacheBudget: 30_000))
            let asset = try await fixture.asset("camera.jpg")  // 800×1200 as displayed
            // Exact sizes: with `.fast`, a rendition of a near size would be served instead.
            let pixels = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, outputFormat: .rgba8)
            // Each rendition is about 33×50 RGBA (6,600 bytes and a header): four fit, the fifth evicts.
            let sizes = (0..<5).map { PixelSize(width: 100, height: 50 + $0) }
            for (index, size) in sizes.enumerated() {
                if index == 4 {
                    // Use the first again: the second becomes the least recently used.
                    #expect(try await fixture.final(asset, size: sizes[0], options: pixels).source == .renditionCache)
                    try await Task.sleep(for: .milliseconds(20))
                }
                _ = try await fixture.final(asset, size: size, options: pixels)
                try await Task.sleep(for: .milliseconds(20))  // distinct modification times
            }
            #expect(fixture.manager.renditionCacheSize <= 30_000)
            let renders = fixture.manager.renderCount
            #expect(try await fixture.final(asset, size: sizes[0], options: pixels).source == .renditionCache)
            #expect(try await fixture.final(asset, size: sizes[1], options: pixels).source == .rendered)
            #expect(fixture.manager.renderCount == renders + 1)
        }
    
        @Test("the budget is the cache's: stored once, read by every manager of the library, refused when not positive")
        func sharedBudget() async throws {
            let fixture = try ImagingFixture()
            #expect(fixture.manager.renditionCacheBudget == 1 << 30, "none stored: 1 GiB")
            let small = try ImageManager(library: fixture.library, configuration: .init(renditionCacheBudget: 30_000))
            #expect(small.renditionCacheBudget == 30_000)
            // A manager opened without a budget (another app, the server) takes the stored one…
            let later = try ImageManager(library: fixture.library)
            #expect(later.renditionCacheBudget == 30_000)
            // …and one already open takes a budget set since at its next eviction, evicting to it.
            let asset = try await fixture.asset("camera.jpg")
            let pixels = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, outputFormat: .rgba8)
            for index in 0..<4 { _ = try await fixture.final(asset, size: PixelSize(width: 100, height: 50 + index), options: pixels) }
            #expect(fixture.manager.renditionCacheSize > 20_000)
            try later.setRenditionCacheBudget(10_000)
            fixture.manager.trimRenditionCache()
            #expect(fixture.manager.renditionCacheBudget == 10_000)
            #expect(fixture.manager.renditionCacheSize <= 10_000)
            #expect(throws: ImageError.self) { try later.setRenditionCacheBudget(0) }
            #expect(throws: ImageError.self) { try ImageManager(library: fixture.library, configuration: .init(renditionCacheBudget: -5)) }
            #expect(later.renditionCacheBudget == 10_000, "a refused budget changes nothing")
        }
    }
}
