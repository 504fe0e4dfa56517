import CImagingGlue
import Synchronization

/// Cancellation and progress of one render, shared with the C callbacks that read files and evaluate
/// pipelines.
///
/// `@unchecked Sendable`: `watch` is allocated in `init` and freed in `deinit`, so it is valid whenever the
/// control is reachable; C code reads and writes its `cancelled` flag atomically (`ci_watch_cancel`), its
/// progress fields are only touched by the one render thread that reads the file, and `fd` is set by that
/// thread before any read. Progress handlers are behind a mutex.
final class RenderControl: @unchecked Sendable {
    let watch: UnsafeMutablePointer<ci_watch>
    private let handlers = Mutex<[Int: @Sendable (Double) -> Void]>([:])
    private let nextHandler = Atomic<Int>(0)

    init() {
        watch = .allocate(capacity: 1)
        watch.initialize(to: ci_watch(cancelled: 0, progress: nil, context: nil, fd: -1, file_size: 0, high_water: 0, last_percent: 0))
    }

    deinit {
        watch.deinitialize(count: 1)
        watch.deallocate()
    }

    /// Stops the render: file reads fail and evaluation is killed at the next tile.
    func cancel() { ci_watch_cancel(watch) }

    var isCancelled: Bool { ci_watch_is_cancelled(watch) != 0 }

    /// Throws ``ImageError/cancelled`` once cancelled.
    func check() throws(ImageError) {
        if isCancelled { throw .cancelled }
    }

    /// Adds a progress handler; returns its key for ``removeProgressHandler(_:)``.
    @discardableResult
    func addProgressHandler(_ handler: @escaping @Sendable (Double) -> Void) -> Int {
        let key = nextHandler.add(1, ordering: .relaxed).newValue
        handlers.withLock { $0[key] = handler }
        return key
    }

    func removeProgressHandler(_ key: Int) {
        _ = handlers.withLock { $0.removeValue(forKey: key) }
    }

    /// Prepares the watch to read `fd` of `size` bytes, reporting progress when the file is large enough
    /// for it to matter (1 MiB and more).
    func attach(fd: Int32, size: Int64) {
        watch.pointee.fd = fd
        watch.pointee.file_size = size
        watch.pointee.high_water = 0
        watch.pointee.last_percent = 0
        guard size >= 1 << 20 else { return }
        watch.pointee.context = Unmanaged.passUnretained(self).toOpaque()
        watch.pointee.progress = { context, fraction in
            guard let context else { return }
            Unmanaged<RenderControl>.fromOpaque(context).takeUnretainedValue().report(fraction)
        }
    }

    /// Stops progress reports (after the decode that reads the file).
    func detach() {
        watch.pointee.progress = nil
        watch.pointee.context = nil
    }

    private func report(_ fraction: Double) {
        for handler in handlers.withLock({ Array($0.values) }) { handler(min(1, fraction)) }
    }
}
