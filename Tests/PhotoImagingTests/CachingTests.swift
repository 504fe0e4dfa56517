import Foundation
import PhotoImaging
import PhotoLibrary
import Synchronization
import Testing

extension ImagingTests {
    @Suite("The caching manager and pre-rendering")
    struct CachingTests {
        static let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, outputFormat: .png)

        /// Eight assets with distinct content.
        static func assets(_ fixture: ImagingFixture) async throws -> [Asset] {
            var assets: [Asset] = []
            for orientation in 1...8 { assets.append(try await fixture.asset("orient-\(orientation).jpg")) }
            return assets
        }

        @Test("cached images are served from the cache; caching runs at most the limit at once")
        func startCaching() async throws {
            let fixture = try ImagingFixture()
            let assets = try await Self.assets(fixture)
            let caching = CachingImageManager(imageManager: fixture.manager, maximumConcurrentCachingRenders: 1)
            caching.startCachingImages(for: assets, targetSize: PixelSize(square: 40), options: Self.options)
            var most = 0
            #expect(await waitUntil {
                most = max(most, fixture.manager.runningRenderCount)
                return caching.cachingCount == 0
            })
            #expect(most <= 1)
            #expect(fixture.manager.renderCount == 8)
            for asset in assets {
                let result = try await fixture.final(asset, size: PixelSize(square: 40), options: Self.options)
                #expect(result.source == .renditionCache)
            }
            #expect(fixture.manager.renderCount == 8)
        }

        @Test("stopping cancels running renders and drops queued ones")
        func stopCaching() async throws {
            let fixture = try ImagingFixture()
            let large = try fixture.asset(referencing: await LargeImage.url)
            let small = try await Self.assets(fixture)
            let caching = CachingImageManager(imageManager: fixture.manager, maximumConcurrentCachingRenders: 1)
            let full = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, outputFormat: .png)
            caching.startCachingImages(for: [large] + small, targetSize: ImageManager.maximumSize, options: full)
            #expect(await waitUntil { fixture.manager.runningRenderCount == 1 })
            caching.stopCachingImages(for: [large] + small, targetSize: ImageManager.maximumSize, options: full)
            #expect(caching.cachingCount == 0)
            #expect(await waitUntil { fixture.manager.runningRenderCount == 0 })
            #expect(fixture.renditionFiles().isEmpty && fixture.manager.renderCount == 1)

            caching.startCachingImages(for: small, targetSize: PixelSize(square: 30), options: Self.options)
            caching.stopCachingImagesForAllAssets()
            #expect(caching.cachingCount == 0)
        }

        @Test("without high quality caching, half-size renditions are cached and serve as degraded results")
        func lowQualityCaching() async throws {
            let fixture = try ImagingFixture()
            // A large image: its final render is slow enough that the cached half-size one always comes first.
            let asset = try fixture.asset(referencing: await LargeImage.url)
            let caching = CachingImageManager(imageManager: fixture.manager)
            caching.allowsCachingHighQualityImages = false
            caching.startCachingImages(for: [asset], targetSize: PixelSize(square: 80), options: Self.options)
            #expect(await waitUntil { caching.cachingCount == 0 })
            var options = Self.options
            options.deliveryMode = .opportunistic
            let results = try await fixture.events(asset, size: PixelSize(square: 80), options: options).compactMap(\.result)
            #expect(results.map(\.size) == [PixelSize(width: 40, height: 27), PixelSize(width: 80, height: 53)])
            #expect(results.first?.isDegraded == true && results.first?.source == .renditionCache)
        }

        @Test("pre-rendering renders the standard sizes once, resumes, and counts failures")
        func prerender() async throws {
            let fixture = try ImagingFixture()
            var assets = try await Self.assets(fixture)
            assets.append(try await fixture.asset("corrupt.jpg"))
            let sizes = [PixelSize(square: 32), PixelSize(square: 64)]
            // A first run stopped after its first asset…
            for await progress in fixture.manager.prerenderRenditions(of: assets, sizes: sizes, concurrency: 1) {
                #expect(progress.completed == 1)
                break
            }
            #expect(await waitUntil { fixture.manager.runningRenderCount == 0 })
            let renderedBefore = fixture.manager.renderCount
            #expect(renderedBefore >= 2 && renderedBefore < 18)
            // … and a second run completes it.
            var last: PrerenderProgress?
            for await progress in fixture.manager.prerenderRenditions(of: assets, sizes: sizes) { last = progress }
            let final = try #require(last)
            #expect(final.total == 9 && final.completed == 9 && final.failed == 1)
            #expect(final.rendered + final.alreadyCached == 16)
            #expect(final.alreadyCached >= 2)
            if case .corruptImage = final.lastError {} else { Issue.record("\(String(describing: final.lastError))") }
            #expect(fixture.renditionFiles().count == 16)
            // A third run renders nothing.
            var third: PrerenderProgress?
            for await progress in fixture.manager.prerenderRenditions(of: assets, sizes: sizes) { third = progress }
            #expect(third?.rendered == 0 && third?.alreadyCached == 16)
        }

        /// Workers finishing at once used to yield after counting, outside the count's lock: the stream (which
        /// keeps the newest element) could end on an older total, and `photosync thumbnails` then called a
        /// finished run interrupted.
        @Test("pre-rendering in parallel: totals never go back, and the last progress is the run's end")
        func prerenderProgressEndsAtTheEnd() async throws {
            let fixture = try ImagingFixture()
            var assets: [Asset] = []
            for index in 0..<60 { assets.append(try await fixture.asset("corrupt.jpg", as: "corrupt-\(index).jpg")) }
            for _ in 0..<300 {
                var completed: [Int] = []
                for await progress in fixture.manager.prerenderRenditions(of: assets, sizes: [PixelSize(square: 32)], concurrency: 8) {
                    completed.append(progress.completed)
                    await Task.yield()
                }
                #expect(completed.last == assets.count, "\(completed)")
                #expect(zip(completed, completed.dropFirst()).allSatisfy { $0 < $1 }, "\(completed)")
            }
        }
    }
}
