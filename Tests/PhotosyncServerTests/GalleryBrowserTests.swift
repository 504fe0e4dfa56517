import Foundation
import PhotosyncWire
import Testing

/// The gallery at `/` in headless Chromium, against the built `photosync watch DIR --serve` — the reference
/// client of the token API, live.
@Suite(.serialized) struct GalleryBrowserTests {
    /// Six pictures over three days: 1 June (three), 8 June (two), 15 June (one).
    static let pictures = [
        Pictures.Spec(name: "june1-a.jpg", taken: "2024:06:01 09:10:00", seed: 0),
        Pictures.Spec(name: "june1-b.jpg", taken: "2024:06:01 12:20:00", seed: 1),
        Pictures.Spec(name: "june1-c.jpg", taken: "2024:06:01 18:30:00", seed: 2),
        Pictures.Spec(name: "june8-a.jpg", taken: "2024:06:08 08:00:00", seed: 3),
        Pictures.Spec(name: "june8-b.jpg", taken: "2024:06:08 19:45:00", seed: 4),
        Pictures.Spec(name: "june15.jpg", taken: "2024:06:15 07:05:00", seed: 5),
    ]

    /// The expected margin over "settle + 1 s" for a dropped photo to show: CI machines are loaded.
    static let margin = 4.0

    @Test("The library by day, newest first, thumbnails loaded; live: a dropped photo shows without a reload within settle + 1 s, a renamed one keeps its place, a deleted one goes")
    func live() async throws {
        try await GalleryHarness.with(Self.pictures) { bench in
            let page = try await bench.open()
            await page.expect("document.body.dataset.feed === 'live' && document.querySelectorAll('#timeline .tile').length === 6")
            await page.expect("[...document.querySelectorAll('#timeline .tile img')].every((i) => i.complete && i.naturalWidth > 0)",
                    "thumbnails did not load")
            let byPath = try await bench.assets()
            let expected = ["june15.jpg", "june8-b.jpg", "june8-a.jpg", "june1-c.jpg", "june1-b.jpg", "june1-a.jpg"]
            #expect(try await page.tiles().map(\.path) == expected, "newest day first, newest first within a day")
            #expect(try await page.tiles().map(\.id) == expected.map { byPath[$0]?.localIdentifier ?? "?" })
            let sections = try await page.evaluate("[...document.querySelectorAll('#timeline .moment')].map((s) => s.querySelectorAll('.tile').length)")
            #expect(sections == [1, 2, 3])
            try await page.screenshot(to: bench.screenshots.appending(path: "gallery-desktop.png"), width: 1280)

            _ = try await page.evaluate("window.notReloaded = true")
            let staged = try Pictures.stage([Pictures.Spec(name: "dropped.jpg", taken: "2024:06:20 10:00:00", seed: 6)], beside: bench.folder)
            defer { try? FileManager.default.removeItem(at: staged) }
            let dropped = ContinuousClock.now
            try FileManager.default.moveItem(at: staged.appending(path: "dropped.jpg"), to: bench.folder.appending(path: "dropped.jpg"))
            let shown = await page.waitFor(
                "document.querySelector('#timeline .moment:first-child .tile[data-path=\"dropped.jpg\"]')",
                seconds: GalleryHarness.settle + 1 + Self.margin)
            let latency = ContinuousClock.now - dropped
            #expect(shown, "the dropped photo did not show within settle + 1 s + \(Self.margin) s")
            print("gallery: a dropped photo showed \(latency) after it was moved into the folder (settle \(GalleryHarness.settle) s)")
            await page.expect("document.querySelector('.tile[data-path=\"dropped.jpg\"] img')?.naturalWidth > 0", "its thumbnail did not load")
            #expect(try await page.evaluate("window.notReloaded === true") == true, "the page was reloaded")
            try Pictures.make([Pictures.Spec(name: "june8-c.jpg", taken: "2024:06:08 12:00:00", seed: 7)], in: bench.folder)
            await page.expect("document.querySelectorAll('#timeline .tile').length === 8")
            #expect(try await page.tiles().map(\.path) == ["dropped.jpg", "june15.jpg", "june8-b.jpg", "june8-c.jpg", "june8-a.jpg"] + expected.suffix(3))

            let before = try await page.tiles().map(\.id)
            try FileManager.default.moveItem(at: bench.folder.appending(path: "june1-b.jpg"), to: bench.folder.appending(path: "renamed.jpg"))
            let renamedID = byPath["june1-b.jpg"]?.localIdentifier ?? "?"
            await page.expect("document.querySelector('.tile[data-path=\"renamed.jpg\"]')?.dataset.id === \(JSONValue.string(renamedID))",
                    "the renamed photo never showed its new name")
            #expect(try await page.tiles().map(\.id) == before, "a renamed photo moved, or another one did")

            let deletedID = byPath["june8-a.jpg"]?.localIdentifier ?? "?"
            try FileManager.default.removeItem(at: bench.folder.appending(path: "june8-a.jpg"))
            await page.expect("document.querySelectorAll('#timeline .tile').length === 7")
            #expect(try await page.tiles().map(\.id) == before.filter { $0 != deletedID })
            #expect(try await page.evaluate("window.notReloaded === true") == true, "the page was reloaded")
            #expect(page.exceptions.isEmpty, "\(page.exceptions)")
        }
    }

    @Test("What is on screen stays put while the page changes above it: a day added at the top, a day emptied above")
    func keepsScrollPosition() async throws {
        try await GalleryHarness.with(Self.pictures) { bench in
            let page = try await bench.open(width: 800, height: 400)
            await page.expect("document.body.dataset.feed === 'live' && document.querySelectorAll('#timeline .tile').length === 6")
            let top = "Math.round(document.querySelector('.tile[data-path=\"june1-b.jpg\"]').getBoundingClientRect().top)"
            await page.settle()
            _ = try await page.evaluate("window.scrollBy(0, \(top) - 150)")
            #expect(try await page.evaluate(top) == 150, "the page can't be scrolled there")
            try Pictures.make([Pictures.Spec(name: "dropped.jpg", taken: "2024:06:20 10:00:00", seed: 6)], in: bench.folder)
            await page.expect("document.querySelector('.tile[data-path=\"dropped.jpg\"] img')?.complete")
            await page.settle()
            let afterAdding = try await page.evaluate(top)
            #expect(afterAdding == 150, "a day added above moved the photos on screen (to \(afterAdding))")
            _ = try await page.evaluate("window.scrollBy(0, \(top) - 150)")
            try FileManager.default.removeItem(at: bench.folder.appending(path: "june15.jpg"))
            await page.expect("!document.querySelector('.tile[data-path=\"june15.jpg\"]')")
            let afterRemoving = try await page.evaluate(top)
            #expect(afterRemoving == 150, "a day emptied above moved the photos on screen (to \(afterRemoving))")
            #expect(page.exceptions.isEmpty, "\(page.exceptions)")
        }
    }

    @Test("The server restarts: the page reconnects by itself and shows what changed meanwhile, without a reload")
    func reconnects() async throws {
        try await GalleryHarness.with(Array(Self.pictures.prefix(2))) { bench in
            let page = try await bench.open()
            await page.expect("document.body.dataset.feed === 'live' && document.querySelectorAll('#timeline .tile').length === 2")
            _ = try await page.evaluate("window.notReloaded = true")
            await bench.stopDaemon()
            await page.expect("document.body.dataset.feed !== 'live'", "the page did not notice the server had gone")
            try Pictures.make([Pictures.Spec(name: "meanwhile.jpg", taken: "2024:06:01 21:00:00", seed: 10)], in: bench.folder)
            try await bench.startDaemon()
            await page.expect("document.querySelector('.tile[data-path=\"meanwhile.jpg\"]') && document.body.dataset.feed === 'live'", seconds: 40)
            #expect(try await page.evaluate("window.notReloaded === true") == true, "the page was reloaded")
            #expect(try await page.evaluate("document.body.dataset.recoveries") == .null, "the page read the whole state again")
            #expect(page.exceptions.isEmpty, "\(page.exceptions)")
        }
    }

    @Test("A day's photos are read when it nears the screen: of many days, those far below wait until scrolled to")
    func lazyDays() async throws {
        let days = (1...24).map { day in
            Pictures.Spec(name: String(format: "day%02d.jpg", day), taken: String(format: "2024:03:%02d 12:00:00", day), seed: day)
        }
        try await GalleryHarness.with(days, size: (160, 107)) { bench in
            let page = try await bench.open()
            await page.expect("document.body.dataset.feed === 'live' && document.querySelectorAll('#timeline .moment').length === 24")
            let reads = "performance.getEntriesByType('resource').filter((e) => /\\/v1\\/albums\\/[^?]+\\/assets/.test(e.name)).length"
            let pending = "document.querySelectorAll('#timeline .grid.pending').length"
            await page.expect("\(reads) > 0 && \(reads) + \(pending) === 24", "the days near the screen were not read")
            let first = try await page.evaluate(reads).int ?? 0
            #expect(first < 24, "every day was read at once")
            #expect(try await page.evaluate("document.querySelector('#library-count').textContent") == "24 items")
            // Scrolled down a screen at a time (the days come into reach as it goes): every day read once.
            await page.expect("(window.scrollBy(0, window.innerHeight), \(pending) === 0)", seconds: 30)
            await page.expect("document.querySelectorAll('#timeline .tile').length === 24")
            #expect(try await page.evaluate(reads).int == 24, "a day was read more than once")
            #expect(page.exceptions.isEmpty, "\(page.exceptions)")
        }
    }

    @Test("The asset view: opened from a tile with the original, arrows step through the library, Escape closes and gives the focus back")
    func assetView() async throws {
        try await GalleryHarness.with(Self.pictures) { bench in
            let page = try await bench.open()
            await page.expect("document.querySelectorAll('#timeline .tile').length === 6 && document.body.dataset.feed === 'live'")
            let tiles = try await page.tiles()
            let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appending(path: "PhotoImagingTests/Fixtures/clip.mp4")
            try FileManager.default.copyItem(at: clip, to: bench.folder.appending(path: "clip.mp4"))
            await page.expect("document.querySelector('.tile[data-path=\"clip.mp4\"] .badge')?.textContent.startsWith('▶')",
                              "the video's tile has no duration badge")
            _ = try await page.evaluate("document.querySelector('#timeline .tile a').focus(); document.querySelector('#timeline .tile a').click()")
            await page.expect("document.querySelector('#viewer').open && document.querySelector('.viewer-image')?.naturalWidth > 0")
            let source = try await page.evaluate("document.querySelector('.viewer-image').getAttribute('src')").string ?? ""
            #expect(source.hasSuffix("/original"), "a JPEG is shown from its original: \(source)")
            #expect(try await page.evaluate("document.querySelector('#viewer').dataset.id").string == tiles[0].id)
            try await page.press("ArrowRight", code: 39)
            try await page.press("ArrowRight", code: 39)
            await page.expect("document.querySelector('#viewer').dataset.id === \(JSONValue.string(tiles[2].id))")
            #expect(try await page.evaluate("decodeURIComponent(location.hash)").string == "#/assets/\(tiles[2].id)")
            try await page.press("ArrowLeft", code: 37)
            await page.expect("document.querySelector('#viewer').dataset.id === \(JSONValue.string(tiles[1].id))")
            await page.expect("document.querySelector('.viewer-image')?.naturalWidth > 0")
            try await page.press("i", code: 73)
            await page.expect("!document.querySelector('#viewer-info').hidden && document.querySelector('#viewer-info').textContent.includes('june8-b.jpg')")
            try await page.screenshot(to: bench.screenshots.appending(path: "gallery-viewer.png"), width: 1280)
            // The last asset: the video (no date: the Undated moment, last), played from its original.
            try await page.press("End", code: 35)
            await page.expect("document.querySelector('.viewer-stage video')?.readyState >= 2 && !document.querySelector('.viewer-stage video').error",
                              "the video does not play from its original")
            #expect(try await page.evaluate("document.querySelector('.viewer-stage video').getAttribute('src')").string?.hasSuffix("/original") == true)
            try await page.press("Home", code: 36)
            await page.expect("document.querySelector('#viewer').dataset.id === \(JSONValue.string(tiles[0].id))")
            try await page.press("ArrowRight", code: 39)
            await page.expect("document.querySelector('#viewer').dataset.id === \(JSONValue.string(tiles[1].id))")
            try await page.press("Escape", code: 27)
            await page.expect("!document.querySelector('#viewer').open && ['', '#/'].includes(location.hash)")
            await page.expect("document.activeElement?.closest('.tile')?.dataset.id === \(JSONValue.string(tiles[1].id))",
                    "the focus did not come back to the tile last shown")
            // The keyboard moves between tiles too.
            try await page.press("ArrowRight", code: 39)
            await page.expect("document.activeElement?.closest('.tile')?.dataset.id === \(JSONValue.string(tiles[2].id))")
            #expect(page.exceptions.isEmpty, "\(page.exceptions)")
        }
    }

    @Test("At a phone's width: three columns, nothing wider than the screen; the albums page lists the folder's albums with covers")
    func phoneAndAlbums() async throws {
        try await GalleryHarness.with(Self.pictures) { bench in
            let page = try await bench.open(width: 390, height: 844, scale: 2, mobile: true)
            await page.expect("document.querySelectorAll('#timeline .tile').length === 6")
            await page.expect("[...document.querySelectorAll('#timeline .tile img')].every((i) => i.complete && i.naturalWidth > 0)")
            #expect(try await page.evaluate("getComputedStyle(document.querySelector('#timeline .grid')).gridTemplateColumns.split(' ').length") == 3)
            #expect(try await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth") == true, "the page is wider than the phone")
            let thumbnail = try await page.evaluate("document.querySelector('#timeline .tile img').getAttribute('src')").string ?? ""
            #expect(thumbnail.contains("/256x256-fill."), "a 3-column tile at 2x wants a 256-pixel thumbnail: \(thumbnail)")
            try await page.screenshot(to: bench.screenshots.appending(path: "gallery-phone.png"), width: 780)

            try await bench.client.send(.POST, "/v1/albums", json: ["title": "Favourites of June"]).expectStatus(201)
            _ = try await page.evaluate("location.hash = '#/albums'")
            await page.expect("[...document.querySelectorAll('.album-title')].some((t) => t.textContent === 'Favourites of June')",
                    "an album created while the page was open did not show")
            await page.expect("[...document.querySelectorAll('.album-card')].some((c) => c.querySelector('img')?.naturalWidth > 0)",
                    "no album cover loaded")
            #expect(page.exceptions.isEmpty, "\(page.exceptions)")
        }
    }

    @Test("The token is kept: a page opened again follows from it; after it expires (410) the page reads the state again, and after a foreign token (400) too")
    func recovery() async throws {
        try await GalleryHarness.with(Array(Self.pictures.prefix(3))) { bench in
            var page = try await bench.open()
            await page.expect("document.querySelectorAll('#timeline .tile').length === 3 && document.body.dataset.feed === 'live'")
            let first = try await bench.client.token()
            await page.expect("localStorage.getItem('photosync.token') === \(JSONValue.string(first))", "the token was not kept")
            try await page.close()

            // While no page is open: a new photo, and the history before it expired.
            try Pictures.make([Pictures.Spec(name: "while-away.jpg", taken: "2024:06:01 20:00:00", seed: 8)], in: bench.folder)
            #expect(await bench.waitForAssets(4))
            let head = try await bench.client.token()
            let expired = try await Processes.run(Processes.photosync, ["--library", bench.library, "history", "--expire-before", head])
            #expect(expired.status == 0, "\(expired.stderr)")
            #expect(try await bench.client.get("/v1/changes?since=\(first)").status == 410)
            // The closed page's stream stays on the server until its next heartbeat fails; the commit woke it, and
            // the page of changes computed for it may be reused for up to a second (its changes are correct).
            // Wait until a stream from the old token is refused, as the page's will be.
            #expect(await waitUntil { (try? await EventReader(bench.client, "/v1/changes/stream?since=\(first)").status) == 410 })

            page = try await bench.open()
            await page.expect("document.body.dataset.lastRecovery === 'tokenExpired' && document.body.dataset.feed === 'live'",
                    "the page did not recover from its expired token")
            await page.expect("document.querySelectorAll('#timeline .tile').length === 4")
            #expect(try await page.tiles().contains { $0.path == "while-away.jpg" })
            await page.expect("localStorage.getItem('photosync.token') === \(JSONValue.string(head))")

            // A token of another library (or garbage): 400 tokenInvalid, the same recovery.
            _ = try await page.evaluate("""
                (async () => {
                  const module = await import(document.querySelector('script[type=module]').src.replace('app.js', 'snapshot.js'));
                  await module.save({ version: 1, token: 'not-a-token', moments: [], assets: [] });
                })()
                """)
            try await page.call("Page.reload")
            await page.expect("document.body.dataset.lastRecovery === 'tokenInvalid' && document.body.dataset.feed === 'live'",
                    "the page did not recover from an invalid token")
            await page.expect("document.querySelectorAll('#timeline .tile').length === 4")
            #expect(page.exceptions.isEmpty, "\(page.exceptions)")
        }
    }

    @Test("A server that needs a key: the page asks for it once, refuses a wrong one, keeps the right one; thumbnails and the stream use it")
    func key() async throws {
        try await GalleryHarness.with(Array(Self.pictures.prefix(2)), needsKey: true) { bench in
            let secret = try #require(bench.secret)
            let page = try await bench.open()
            await page.expect("document.querySelector('#key-dialog').open", "no key was asked for")
            let submit = { (key: String) in
                _ = try await page.evaluate("""
                    document.querySelector('#key-input').value = \(JSONValue.string(key));
                    document.querySelector('#key-dialog form').requestSubmit();
                    """)
            }
            try await submit("psk_wrong")
            await page.expect("document.querySelector('.key-error').textContent.includes('isn’t valid')")
            #expect(try await page.evaluate("document.querySelector('#key-dialog').open") == true)
            try await submit(secret)
            await page.expect("!document.querySelector('#key-dialog').open && document.body.dataset.feed === 'live'")
            await page.expect("[...document.querySelectorAll('#timeline .tile img')].length === 2 && [...document.querySelectorAll('#timeline .tile img')].every((i) => i.complete && i.naturalWidth > 0)",
                    "the thumbnails did not load with the key")
            #expect(try await page.evaluate("localStorage.getItem('photosync.key')").string == secret)
            try Pictures.make([Pictures.Spec(name: "with-key.jpg", taken: "2024:06:02 10:00:00", seed: 9)], in: bench.folder)
            await page.expect("document.querySelector('.tile[data-path=\"with-key.jpg\"]') !== null", "the stream did not deliver with the key")

            // Opened again: the key is kept, nothing is asked.
            try await page.call("Page.reload")
            await page.expect("document.body.dataset.feed === 'live' && document.querySelectorAll('#timeline .tile').length === 3")
            #expect(try await page.evaluate("document.querySelector('#key-dialog').open") == false)
            #expect(page.exceptions.isEmpty, "\(page.exceptions)")
        }
    }
}
