import Foundation
import PhotoImaging
import PhotoLibrary
import Testing

extension ImagingTests {
    @Suite("Pre-rendering within the rendition cache's budget")
    struct PrerenderBudgetTests {
        @Test("a pre-render stops before the cache passes its budget, evicting nothing; the next one goes no further")
        func stopsAtTheBudget() async throws {
            let budget: Int64 = 40_000
            let fixture = try ImagingFixture(configuration: ImageManager.Configuration(renditionCacheBudget: budget))
            let jpeg = try Data(contentsOf: ImagingFixture.fixture("camera.jpg"))
            var assets: [Asset] = []
            for index in 0..<40 {
                let file = fixture.filesFolder.appending(path: "IMG_\(index).jpg")
                try (jpeg + Data("copy \(index)".utf8)).write(to: file)  // distinct content, same picture
                assets.append(try fixture.asset(referencing: file))
            }
            func run() async -> PrerenderProgress? {
                var last: PrerenderProgress?
                for await progress in fixture.manager.prerenderRenditions(of: assets, sizes: [PixelSize(square: 64)], concurrency: 1) {
                    last = progress
                }
                return last
            }
            let first = try #require(await run())
            #expect(first.stoppedAtBudget && first.completed < 40 && first.rendered > 10, "\(first)")
            // Nothing was evicted: every rendition made is there, and the cache is within its budget.
            #expect(fixture.renditionFiles().count == first.rendered)
            #expect(fixture.manager.renditionCacheSize <= budget)
            let second = try #require(await run())
            #expect(second.stoppedAtBudget && second.rendered == 0 && second.alreadyCached == first.rendered, "\(second)")
        }
    }
}
