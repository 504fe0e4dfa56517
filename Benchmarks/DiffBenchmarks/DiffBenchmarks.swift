import Benchmark
import Collections
import IndexDiff

let benchmarks: @Sendable () -> Void = {
    Benchmark("placeholder") { benchmark in
        blackHole(1)
    }
}
